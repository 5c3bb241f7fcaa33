#pragma once
// Resolution: from the raw, checked key=value records to the typed Config, applying Slurm's
// defaults, alias rules and soft corrections (each correction is a warning, each fatal
// check an error). One function per part of the model; analyze.cpp calls them in order.
#include "analyzer/analyze.h"
#include "analyzer/diagnostics.h"
#include "analyzer/model.h"
#include "analyzer/raw_config.h"

namespace sa {

/// Every resolver and cross-check below, in order: the typed model of checked settings
/// (analyze_* after collecting and validating them, and config_edit.h's resolve_edited).
void resolve_model(const RawConfig& raw, const AnalyzeOptions& options, Config& config, DiagnosticSink& sink);
void validate_scalar_types(const RawConfig& raw, const SlurmVersion& version, DiagnosticSink& sink);
void validate_record_types(const RawConfig& raw, const SlurmVersion& version, DiagnosticSink& sink);
/// At most `max_nodes` nodes in all (limits.nodes); the rest is one CONF049.
// `names_left` (optional) is the countdown of hostlist names the config may still expand to
// (InputLimits::hostlist_names), shared by every resolver that expands hostlists.
void resolve_nodes(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t max_nodes = 100'000,
                   std::int64_t* names_left = nullptr);
void resolve_nodesets(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t* names_left = nullptr);
void resolve_partitions(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t* names_left = nullptr);
void resolve_down_nodes(const RawConfig& raw, Config& config, DiagnosticSink& sink, std::int64_t* names_left = nullptr);
/// The diagnostic for a hostlist that did not expand: CONF049 when the names budget ran out
/// (with the --limit that raises it), else `code` with "invalid <what> hostlist: ...".
void report_hostlist_error(DiagnosticSink& sink, const SourceLoc& loc, const std::string& code, const std::string& what,
                           const Error& error);
void resolve_cluster(const RawConfig& raw, Config& config, DiagnosticSink& sink);
void resolve_priority(const RawConfig& raw, Config& config, DiagnosticSink& sink);
void resolve_scheduler(const RawConfig& raw, Config& config, DiagnosticSink& sink);
void resolve_select(const RawConfig& raw, Config& config, DiagnosticSink& sink);
void resolve_preempt(const RawConfig& raw, Config& config, DiagnosticSink& sink);
void check_plugins(const RawConfig& raw, const Config& config, DiagnosticSink& sink);
void check_cross_settings(const RawConfig& raw, const Config& config, DiagnosticSink& sink);
void check_option_lists(const RawConfig& raw, const Config& config, DiagnosticSink& sink);

/// Parses a PreemptMode list; the error says what is wrong (two base modes, GANG,WITHIN...).
Result<PreemptMode> parse_preempt_mode(std::string_view text, const SlurmVersion& version);
/// Parses node Gres: name[:type][:no_consume][:count[KMGTP]], comma-separated.
Result<std::vector<GresSpec>> parse_gres(std::string_view text);
/// Parses "cpu=1.0,mem=0.25G,gres/gpu=2" (TRESBillingWeights, PriorityWeightTRES).
Result<std::vector<TresWeight>> parse_tres_weights(std::string_view text);

}  // namespace sa
