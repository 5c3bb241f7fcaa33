#pragma once
// `slurm-advisor tune --format html`: one self-contained page (the page shell, CSP and
// escaping of html_writer.h): the verdict, each goal's baseline and recommended values with
// their 95 % intervals, the Pareto front when the goals conflict, the ranked candidates, the
// skipped ones with the analyzer's reason, and the recommended change as a diff.
#include <string>

#include "tune/search.h"
#include "tune/tune_report.h"

namespace sa::report {

std::string tune_html(const tune::SearchOutcome& outcome, const tune::ReportContext& ctx);

}  // namespace sa::report
