#pragma once
// What `slurm-advisor --version` says: the tool's version (cmake/version.cmake) and the Slurm
// releases whose key tables it checks against.
#include <string>

namespace sa::cli {

std::string version_text();

}  // namespace sa::cli
