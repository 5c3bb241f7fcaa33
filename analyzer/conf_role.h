#pragma once
// What a file handed to `lint` as slurm.conf really is. CI jobs often lint every *.conf of a
// configuration directory, and gres.conf, topology.conf, cgroup.conf and the node or partition
// files a slurm.conf Includes all share its syntax: read as a whole slurm.conf they would each
// fail for a missing ClusterName and SlurmctldHost, which is noise, not a defect.
#include "analyzer/conf_loader.h"

namespace sa {

enum class ConfRole { kWhole, kFragment, kGres, kTopology, kCgroup };

/// Judged from the key each line starts with (Include files spliced in): only a file every
/// line of which belongs to one of the other kinds is not a whole slurm.conf. A file with no
/// lines, or any cluster-wide setting, is whole.
ConfRole sniff_conf_role(const LoadedConf& loaded);

}  // namespace sa
