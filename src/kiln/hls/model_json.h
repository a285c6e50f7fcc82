// hls::Model <-> JSON, so a written project carries everything `kiln csim DIR`
// needs (tensors, layers, parameters, precisions, quantized constants, ports)
// in `kiln_model.json`, with no need for the ONNX file or the config.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kiln/hls/model.h"

namespace kiln::hls {

// File format identification, checked on load.
inline constexpr const char* kModelJsonFormat = "kiln-hls-model";
// Version 2: layers list their outputs (Clone layers have several).
inline constexpr int kModelJsonVersion = 2;

nlohmann::json model_to_json(const Model& model);
// Throws kiln::Error(InvalidModel) naming `where` on a malformed document.
Model model_from_json(const nlohmann::json& j, const std::string& where = "kiln_model.json");

// The project file: {"format", "version", "source": <caller's metadata>, "model": ...}.
struct ModelFile {
  Model model;
  nlohmann::json source;  // what the writer was given (e.g. the ONNX path); may be null
};
void save_model_json(const std::filesystem::path& path, const Model& model,
                     const nlohmann::json& source = nullptr);
// Io if unreadable, InvalidModel if malformed.
ModelFile load_model_json(const std::filesystem::path& path);

}  // namespace kiln::hls
