// Pictures for the CLI (`kiln profile --plot FILE`, `kiln report DIR --html
// FILE`): kiln gathers the data as JSON and kiln_plot.py draws it with
// matplotlib (src/kiln/python/kiln_plot.py, run by Debian's python3), the same
// code the Python module's kiln.plot_* functions use.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "kiln/commands/hls_flow.h"

namespace kiln::commands {

// Checks, before any work, that `file` may be written: Usage when it exists
// without `overwrite` or (plots) its extension is not .png, .svg or .pdf, Io
// when its directory does not exist.
void check_plot_file(const std::filesystem::path& file, bool overwrite);
void check_html_file(const std::filesystem::path& file, bool overwrite);

// The precision plot of a profile (profile_to_json), against its suggested
// types, to `file` (.png, .svg or .pdf). Throws kiln::Error: Unsupported when
// python3 or matplotlib is missing, Internal when drawing fails.
void plot_profile_file(const ProfileResult& profile, const std::filesystem::path& file,
                       bool overwrite);

// The data of a project's HTML report: its estimate with the device, the
// precision profile of its ONNX model on random inputs against the types
// each layer uses, and the last C simulation (csim_report.json) if any.
nlohmann::json report_data(const std::filesystem::path& project);

// The HTML report, one self-contained file (inline SVG pictures).
void write_report_html(const std::filesystem::path& project, const std::filesystem::path& file,
                       bool overwrite);

}  // namespace kiln::commands
