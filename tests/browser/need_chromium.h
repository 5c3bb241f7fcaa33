#pragma once
// The skip-or-fail guard of every test that starts Chromium.
#include <cstdlib>

#include <gtest/gtest.h>

#include "chromium.h"

// Skips when the browser is missing, unless SA_REQUIRE_CHROMIUM is set (CI): then it fails.
#define SA_NEED_CHROMIUM()                                                                                      \
  do {                                                                                                          \
    if (!::sa::browser::chromium_available()) {                                                                 \
      if (std::getenv("SA_REQUIRE_CHROMIUM")) FAIL() << "no chromium at " << ::sa::browser::default_chromium(); \
      GTEST_SKIP() << "no chromium at " << ::sa::browser::default_chromium()                                    \
                   << " (scripts/install_deps.sh installs it)";                                                 \
    }                                                                                                           \
  } while (0)
