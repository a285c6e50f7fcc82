#include "kiln/hls/config.h"

#include <gtest/gtest.h>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::hls {
namespace {

using kiln::testing::catch_error;

FixedType fx(int w, int i) {
  return FixedType{w, i};
}

Error parse_error(const std::string& text) {
  return catch_error([&] { parse_config(text, "config.yaml"); });
}

TEST(Config, ParsesEveryKey) {
  const Config c = parse_config(R"(
Part: xcu250-figd2104-2L-e
ClockPeriod: 3.3
IOType: io_stream
Backend: bambu
Model:
  Precision:
    weight: ap_fixed<8,3>
    bias: ap_fixed<12,4>
    result: ap_fixed<18,8>
    accum: ap_fixed<24,10,AP_RND,AP_SAT>
    table: ap_fixed<10,2>
    inv_table: ap_ufixed<14,4>
  ReuseFactor: 4
  Strategy: Resource
  ConvImplementation: Encoded
  TargetCycles: 10000
  TableSize: 512
  TableRange: 4
LayerType:
  Conv:
    ReuseFactor: 8
LayerName:
  fc1:
    Precision: ap_fixed<20,9>
)",
                                "config.yaml");
  EXPECT_EQ(c.part, "xcu250-figd2104-2L-e");
  EXPECT_DOUBLE_EQ(c.clock_period_ns, 3.3);
  EXPECT_EQ(c.io_type, IOType::Stream);
  EXPECT_EQ(c.backend, Backend::Bambu);
  EXPECT_EQ(c.model.weight->type, fx(8, 3));
  EXPECT_EQ(c.model.bias->type, fx(12, 4));
  EXPECT_EQ(c.model.result->type, fx(18, 8));
  FixedType acc = fx(24, 10);
  acc.quant = numeric::QuantMode::Rnd;
  acc.overflow = numeric::OverflowMode::Sat;
  EXPECT_EQ(c.model.accum->type, acc);
  EXPECT_EQ(c.model.table->type, fx(10, 2));
  FixedType inv = fx(14, 4);
  inv.is_signed = false;
  EXPECT_EQ(c.model.inv_table->type, inv);
  EXPECT_EQ(c.model.reuse_factor, 4);
  EXPECT_EQ(c.model.strategy, Strategy::Resource);
  EXPECT_EQ(c.model.conv_impl, ConvImpl::Encoded);
  EXPECT_EQ(c.model.target_cycles, 10000);
  EXPECT_EQ(c.model.table_size, 512);
  EXPECT_EQ(c.model.table_range, 4.0);
  EXPECT_EQ(c.by_type.at(LayerKind::Conv).reuse_factor, 8);
  // A single type string sets the arithmetic fields, not the tables.
  const LayerConfig& fc1 = c.by_name.at("fc1");
  EXPECT_EQ(fc1.result->type, fx(20, 9));
  EXPECT_EQ(fc1.weight->type, fx(20, 9));
  EXPECT_EQ(fc1.accum->type, fx(20, 9));
  EXPECT_FALSE(fc1.table.has_value());
  EXPECT_FALSE(fc1.reuse_factor.has_value());
}

TEST(Config, EmptyDocumentIsDefault) {
  const Config c = parse_config("", "config.yaml");
  EXPECT_EQ(c.part, "xcvu9p-flga2104-2L-e");
  EXPECT_EQ(c.clock_period_ns, 5.0);
  EXPECT_EQ(c.io_type, IOType::Parallel);
  EXPECT_EQ(c.model, LayerConfig{});
}

TEST(Config, EnumsAreCaseInsensitive) {
  const Config c = parse_config("IOType: IO_STREAM\nModel: {Strategy: resource}\n", "c");
  EXPECT_EQ(c.io_type, IOType::Stream);
  EXPECT_EQ(c.model.strategy, Strategy::Resource);
}

TEST(Config, AutoPrecision) {
  const Config c = parse_config("Model:\n  Precision:\n    weight: auto\n    result: AUTO\n", "c");
  EXPECT_TRUE(c.model.weight->automatic);
  EXPECT_TRUE(c.model.result->automatic);
  EXPECT_FALSE(c.model.bias.has_value());
}

// ---- one test per kind of bad config ---------------------------------------

TEST(ConfigErrors, UnknownTopLevelKeySuggestsSpelling) {
  const Error e = parse_error("IOTyp: io_stream\n");
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.where(), "config.yaml: IOTyp");
  EXPECT_CONTAINS(e.where(), "line 1");
  EXPECT_CONTAINS(e.what_happened(), "unknown key 'IOTyp'");
  EXPECT_EQ(e.hint(), "did you mean 'IOType'?");
}

TEST(ConfigErrors, UnknownLayerKeySuggestsSpelling) {
  const Error e = parse_error("LayerName:\n  conv1:\n    ReuseFactr: 2\n");
  EXPECT_CONTAINS(e.where(), "config.yaml: LayerName.conv1.ReuseFactr (line 3)");
  EXPECT_EQ(e.hint(), "did you mean 'ReuseFactor'?");
}

TEST(ConfigErrors, WrongCaseKeySuggestsRightCase) {
  const Error e = parse_error("Model:\n  reusefactor: 2\n");
  EXPECT_EQ(e.hint(), "did you mean 'ReuseFactor'?");
}

TEST(ConfigErrors, FarOffKeyListsValidKeys) {
  const Error e = parse_error("Model:\n  Banana: 2\n");
  EXPECT_CONTAINS(e.hint(), "valid keys: Precision, ReuseFactor, Strategy");
}

TEST(ConfigErrors, HlsConfigWrapperExplained) {
  const Error e = parse_error("HLSConfig:\n  Model: {}\n");
  EXPECT_CONTAINS(e.hint(), "top level");
}

TEST(ConfigErrors, UnknownLayerType) {
  const Error e = parse_error("LayerType:\n  Dens:\n    ReuseFactor: 2\n");
  EXPECT_CONTAINS(e.where(), "config.yaml: LayerType.Dens");
  EXPECT_CONTAINS(e.what_happened(), "unknown layer type 'Dens'");
  EXPECT_EQ(e.hint(), "did you mean 'Dense'?");
}

TEST(ConfigErrors, UnknownPrecisionField) {
  const Error e = parse_error("Model:\n  Precision:\n    weights: ap_fixed<8,3>\n");
  EXPECT_CONTAINS(e.where(), "Model.Precision.weights");
  EXPECT_EQ(e.hint(), "did you mean 'weight'?");
}

TEST(ConfigErrors, WrongValueTypeMapForNumber) {
  const Error e = parse_error("Model:\n  ReuseFactor: {a: 1}\n");
  EXPECT_CONTAINS(e.where(), "config.yaml: Model.ReuseFactor");
  EXPECT_CONTAINS(e.what_happened(), "expects a positive integer, got a map");
}

TEST(ConfigErrors, NonIntegerReuseFactor) {
  const Error e = parse_error("Model:\n  ReuseFactor: 2.5\n");
  EXPECT_CONTAINS(e.what_happened(), "expects a positive integer, got '2.5'");
}

TEST(ConfigErrors, NonPositiveReuseFactor) {
  const Error e = parse_error("Model:\n  ReuseFactor: 0\n");
  EXPECT_CONTAINS(e.what_happened(), "must be a positive integer, got 0");
}

TEST(ConfigErrors, NegativeClockPeriod) {
  const Error e = parse_error("ClockPeriod: -5\n");
  EXPECT_CONTAINS(e.where(), "config.yaml: ClockPeriod");
  EXPECT_CONTAINS(e.what_happened(), "must be a positive number, got -5");
}

TEST(ConfigErrors, NonNumericClockPeriod) {
  const Error e = parse_error("ClockPeriod: fast\n");
  EXPECT_CONTAINS(e.what_happened(), "expects a positive number, got 'fast'");
}

TEST(ConfigErrors, BadEnumListsValidValues) {
  const Error e = parse_error("IOType: io_streem\n");
  EXPECT_CONTAINS(e.what_happened(),
                  "'io_streem' is not valid; valid values: io_parallel, io_stream");
  EXPECT_EQ(e.hint(), "did you mean 'io_stream'?");
  const Error s = parse_error("Model:\n  Strategy: Fast\n");
  EXPECT_CONTAINS(s.what_happened(), "valid values: Latency, Resource");
  const Error ci = parse_error("Model:\n  ConvImplementation: im2col\n");
  EXPECT_CONTAINS(ci.what_happened(), "valid values: LineBuffer, Encoded");
  const Error b = parse_error("Backend: vivado\n");
  EXPECT_CONTAINS(b.what_happened(), "valid values: vitis, bambu");
  // With no close spelling the hint does not list the values again.
  const Error cp = parse_error("Model:\n  ConstantProducts: BRAM\n");
  EXPECT_CONTAINS(cp.what_happened(), "'BRAM' is not valid; valid values: LUT, DSP");
  EXPECT_EQ(cp.hint(), "use one of those");
  const Error ad = parse_error("Model:\n  AdderDepth: Deep\n");
  EXPECT_CONTAINS(ad.what_happened(), "'Deep' is not valid; valid values: Lean, Least");
}

TEST(ConfigErrors, BadPrecisionStringGivesParserReason) {
  const Error e = parse_error("Model:\n  Precision:\n    result: ap_fixed<16\n");
  EXPECT_CONTAINS(e.where(), "config.yaml: Model.Precision.result (line 3)");
  // The parser's own reason, which names the text.
  std::string reason;
  ASSERT_FALSE(numeric::parse_fixed_type("ap_fixed<16", &reason).has_value());
  EXPECT_EQ(e.what_happened(), reason);
  EXPECT_CONTAINS(e.what_happened(), "ap_fixed<16");
  const Error w = parse_error("Model:\n  Precision:\n    result: ap_fixed<16,99,AP_XYZ>\n");
  EXPECT_CONTAINS(w.what_happened(), "AP_XYZ");
}

TEST(ConfigErrors, FlowMapCommaCutsType) {
  const Error e = parse_error("Model:\n  Precision: {result: ap_fixed<16,6>}\n");
  EXPECT_CONTAINS(e.hint(), "quote the type");
}

TEST(ConfigErrors, PrecisionOfWrongShape) {
  const Error e = parse_error("Model:\n  Precision: [1, 2]\n");
  EXPECT_CONTAINS(e.what_happened(), "got a list");
}

TEST(ConfigErrors, AutoNotAllowedForTables) {
  const Error e = parse_error("Model:\n  Precision:\n    table: auto\n");
  EXPECT_CONTAINS(e.what_happened(), "'auto' is available for weight, bias, result and accum only");
}

TEST(ConfigErrors, TableSizeNotPowerOfTwo) {
  const Error e = parse_error("Model:\n  TableSize: 1000\n");
  EXPECT_CONTAINS(e.where(), "Model.TableSize");
  EXPECT_CONTAINS(e.what_happened(), "must be a power of two >= 2, got 1000");
}

TEST(ConfigErrors, TableRangeNotPowerOfTwo) {
  const Error e = parse_error("Model:\n  TableRange: 6\n");
  EXPECT_CONTAINS(e.what_happened(), "must be a power of two, got 6");
  // Fractional powers of two are fine.
  EXPECT_EQ(parse_config("Model:\n  TableRange: 0.5\n", "c").model.table_range, 0.5);
}

TEST(ConfigErrors, NonPositiveTargetCycles) {
  const Error e = parse_error("Model:\n  TargetCycles: -1\n");
  EXPECT_CONTAINS(e.what_happened(), "must be a positive integer, got -1");
}

TEST(ConfigErrors, DuplicateKey) {
  const Error e = parse_error("Model:\n  ReuseFactor: 2\n  ReuseFactor: 4\n");
  EXPECT_CONTAINS(e.where(), "Model.ReuseFactor");
  EXPECT_CONTAINS(e.what_happened(), "appears twice");
}

TEST(ConfigErrors, BlockIsNotAMap) {
  const Error e = parse_error("Model: 4\n");
  EXPECT_CONTAINS(e.where(), "config.yaml: Model");
  EXPECT_CONTAINS(e.what_happened(), "expects a map of keys, got '4'");
}

TEST(ConfigErrors, YamlSyntaxError) {
  const Error e = parse_error("Model:\n  ReuseFactor: [1\n");
  EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
  EXPECT_CONTAINS(e.where(), "config.yaml:");
  EXPECT_CONTAINS(e.what_happened(), "YAML syntax error");
}

TEST(ConfigErrors, MissingFileIsIo) {
  const Error e = catch_error([] { load_config("/nonexistent/kiln/config.yaml"); });
  EXPECT_EQ(e.kind(), ErrorKind::Io);
}

TEST(ConfigErrors, EmptyValue) {
  const Error e = parse_error("Model:\n  ReuseFactor:\n");
  EXPECT_CONTAINS(e.what_happened(), "expects a positive integer, got nothing");
}

// ---- --set -------------------------------------------------------------------

TEST(ConfigSet, TopLevelAndNestedKeys) {
  Config c;
  apply_set(c, "IOType=io_stream");
  apply_set(c, "Part=xc7z020clg400-1");
  apply_set(c, "ClockPeriod=4");
  apply_set(c, "Model.ReuseFactor=8");
  apply_set(c, "Model.Precision.result=ap_fixed<18,8>");
  apply_set(c, "LayerType.Conv.ConvImplementation=Encoded");
  apply_set(c, "LayerName.fc1.ReuseFactor=16");
  apply_set(c, "LayerName.fc1.Precision.accum=ap_fixed<40,16,AP_RND,AP_SAT>");
  EXPECT_EQ(c.io_type, IOType::Stream);
  EXPECT_EQ(c.part, "xc7z020clg400-1");
  EXPECT_EQ(c.clock_period_ns, 4.0);
  EXPECT_EQ(c.model.reuse_factor, 8);
  EXPECT_EQ(c.model.result->type, fx(18, 8));
  EXPECT_EQ(c.by_type.at(LayerKind::Conv).conv_impl, ConvImpl::Encoded);
  EXPECT_EQ(c.by_name.at("fc1").reuse_factor, 16);
  EXPECT_EQ(c.by_name.at("fc1").accum->type.width, 40);
  EXPECT_EQ(c.by_name.at("fc1").accum->type.overflow, numeric::OverflowMode::Sat);
}

TEST(ConfigSet, PrecisionShorthandSetsArithmeticFields) {
  Config c;
  apply_set(c, "Model.Precision=ap_fixed<18,7>");
  EXPECT_EQ(c.model.result->type, fx(18, 7));
  EXPECT_EQ(c.model.weight->type, fx(18, 7));
  EXPECT_EQ(c.model.bias->type, fx(18, 7));
  EXPECT_EQ(c.model.accum->type, fx(18, 7));
  EXPECT_FALSE(c.model.table.has_value());
  EXPECT_FALSE(c.model.inv_table.has_value());
}

TEST(ConfigSet, LayerNameWithDots) {
  Config c;
  apply_set(c, "LayerName./layer1.0/conv1/Conv.Precision.weight=ap_fixed<8,2>");
  ASSERT_EQ(c.by_name.count("/layer1.0/conv1/Conv"), 1u);
  EXPECT_EQ(c.by_name.at("/layer1.0/conv1/Conv").weight->type, fx(8, 2));
}

TEST(ConfigSet, OverridesFileValues) {
  Config c = parse_config("Model:\n  ReuseFactor: 2\n  Strategy: Resource\n", "config.yaml");
  apply_set(c, "Model.ReuseFactor=4");
  EXPECT_EQ(c.model.reuse_factor, 4);
  EXPECT_EQ(c.model.strategy, Strategy::Resource);
}

TEST(ConfigSetErrors, MissingEquals) {
  Config c;
  const Error e = catch_error([&] { apply_set(c, "IOType"); });
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_CONTAINS(e.what_happened(), "expects KEY=VALUE");
}

TEST(ConfigSetErrors, UnknownKeyNamesSetAndSuggests) {
  Config c;
  const Error e = catch_error([&] { apply_set(c, "Model.ReuseFacter=4"); });
  EXPECT_EQ(e.where(), "--set: Model.ReuseFacter");
  EXPECT_EQ(e.hint(), "did you mean 'ReuseFactor'?");
  const Error t = catch_error([&] { apply_set(c, "IOtype=io_stream"); });
  EXPECT_EQ(t.hint(), "did you mean 'IOType'?");
}

TEST(ConfigSetErrors, BadValue) {
  Config c;
  const Error e = catch_error([&] { apply_set(c, "LayerName.fc1.ReuseFactor=zero"); });
  EXPECT_EQ(e.where(), "--set: LayerName.fc1.ReuseFactor");
  EXPECT_CONTAINS(e.what_happened(), "expects a positive integer, got 'zero'");
}

TEST(ConfigSetErrors, BlockWithoutKey) {
  Config c;
  const Error e = catch_error([&] { apply_set(c, "Model=4"); });
  EXPECT_CONTAINS(e.what_happened(), "names a block");
}

// ---- resolution ---------------------------------------------------------------

TEST(ConfigResolve, NameOverTypeOverModelOverDefault) {
  const Config c = parse_config(R"(
Model:
  ReuseFactor: 2
  Strategy: Resource
  Precision: {weight: 'ap_fixed<10,4>'}
LayerType:
  Dense:
    ReuseFactor: 4
    Precision:
      bias: ap_fixed<12,5>
LayerName:
  fc1:
    ReuseFactor: 8
)",
                                "c");
  const ResolvedLayerConfig fc1 = resolve_layer_config(c, LayerKind::Dense, "fc1", "");
  EXPECT_EQ(fc1.reuse_factor, 8);
  EXPECT_EQ(fc1.reuse_level, ConfigLevel::Name);
  EXPECT_EQ(fc1.strategy, Strategy::Resource);
  EXPECT_EQ(fc1.weight.type, fx(10, 4));
  EXPECT_EQ(fc1.bias.type, fx(12, 5));
  EXPECT_EQ(fc1.result.type, fx(16, 6));  // default
  EXPECT_EQ(fc1.accum.type, fx(32, 12));  // default
  const ResolvedLayerConfig fc2 = resolve_layer_config(c, LayerKind::Dense, "fc2", "");
  EXPECT_EQ(fc2.reuse_factor, 4);
  EXPECT_EQ(fc2.reuse_level, ConfigLevel::Type);
  const ResolvedLayerConfig conv = resolve_layer_config(c, LayerKind::Conv, "conv", "");
  EXPECT_EQ(conv.reuse_factor, 2);
  EXPECT_EQ(conv.reuse_level, ConfigLevel::Model);
  EXPECT_EQ(conv.bias.type, fx(16, 6));
}

TEST(ConfigResolve, OnnxNameIsAccepted) {
  const Config c = parse_config("LayerName:\n  /fc/Gemm:\n    ReuseFactor: 8\n", "c");
  EXPECT_EQ(resolve_layer_config(c, LayerKind::Dense, "fc_Gemm", "/fc/Gemm").reuse_factor, 8);
}

TEST(ConfigResolve, AutoTakesWidthFromLessSpecificLevel) {
  const Config c = parse_config(R"(
Model:
  Precision:
    weight: ap_fixed<8,3,AP_RND,AP_SAT>
    accum: auto
LayerName:
  fc1:
    Precision: {weight: auto}
)",
                                "c");
  const ResolvedLayerConfig r = resolve_layer_config(c, LayerKind::Dense, "fc1", "");
  EXPECT_TRUE(r.weight.automatic);
  EXPECT_EQ(r.weight.type.width, 8);
  EXPECT_EQ(r.weight.type.quant, numeric::QuantMode::Rnd);
  EXPECT_TRUE(r.accum.automatic);
  EXPECT_EQ(r.accum.type.width, 32);  // the default accum width
  EXPECT_FALSE(r.bias.automatic);
}

// ---- the RTL keys (kiln rtl) ----------------------------------------------------

TEST(ConfigRtl, SchedulerAndMultiplierLimitAtEveryLevel) {
  const Config c = parse_config(R"(
Model:
  Scheduler: SDC
  MultiplierLimit: 16
LayerType:
  Dense:
    MultiplierLimit: 8
LayerName:
  fc1:
    MultiplierLimit: 2
)",
                                "c");
  EXPECT_EQ(c.scheduler, RtlScheduler::Sdc);
  const ResolvedLayerConfig fc1 = resolve_layer_config(c, LayerKind::Dense, "fc1", "");
  EXPECT_EQ(fc1.multiplier_limit, 2);
  EXPECT_EQ(fc1.multiplier_limit_level, ConfigLevel::Name);
  EXPECT_EQ(resolve_layer_config(c, LayerKind::Dense, "fc2", "").multiplier_limit, 8);
  EXPECT_EQ(resolve_layer_config(c, LayerKind::Conv, "conv", "").multiplier_limit, 16);
  // Neither key set: the default scheduler, no limit.
  const Config d = parse_config("", "c");
  EXPECT_FALSE(d.scheduler.has_value());
  EXPECT_FALSE(resolve_layer_config(d, LayerKind::Dense, "fc1", "").multiplier_limit.has_value());
}

TEST(ConfigRtl, SetOverrides) {
  Config c;
  apply_set(c, "Model.Scheduler=asap");
  apply_set(c, "LayerType.Conv.MultiplierLimit=4");
  apply_set(c, "LayerName.fc1.MultiplierLimit=1");
  EXPECT_EQ(c.scheduler, RtlScheduler::Asap);
  EXPECT_EQ(c.by_type.at(LayerKind::Conv).multiplier_limit, 4);
  EXPECT_EQ(c.by_name.at("fc1").multiplier_limit, 1);
}

TEST(ConfigRtlErrors, BadSchedulerListsChoices) {
  const Error e = parse_error("Model:\n  Scheduler: ilp\n");
  EXPECT_CONTAINS(e.where(), "config.yaml: Model.Scheduler (line 2)");
  EXPECT_CONTAINS(e.what_happened(), "'ilp' is not valid; valid values: asap, list, sdc");
}

TEST(ConfigRtlErrors, SchedulerOnlyInTheModelBlock) {
  const Error e = parse_error("LayerType:\n  Dense:\n    Scheduler: sdc\n");
  EXPECT_CONTAINS(e.where(), "LayerType.Dense.Scheduler");
  EXPECT_EQ(e.what_happened(), "Scheduler applies to the whole model");
  EXPECT_CONTAINS(e.hint(), "Model.Scheduler");
  Config c;
  const Error top = catch_error([&] { apply_set(c, "Scheduler=sdc"); });
  EXPECT_EQ(top.hint(), "'Scheduler' goes in the Model block: Model.Scheduler");
}

TEST(ConfigRtlErrors, MultiplierLimitMustBeANonNegativeInteger) {
  const Error negative = parse_error("LayerName:\n  fc1:\n    MultiplierLimit: -1\n");
  EXPECT_CONTAINS(negative.where(), "LayerName.fc1.MultiplierLimit (line 3)");
  EXPECT_CONTAINS(negative.what_happened(), "expects a non-negative integer, got '-1'");
  Config c;
  apply_set(c, "Model.MultiplierLimit=0");  // products of two variables in LUTs
  const Error word = catch_error([&] { apply_set(c, "Model.MultiplierLimit=many"); });
  EXPECT_EQ(word.where(), "--set: Model.MultiplierLimit");
  EXPECT_CONTAINS(word.what_happened(), "expects a non-negative integer, got 'many'");
  const Error top = catch_error([&] { apply_set(c, "MultiplierLimit=4"); });
  EXPECT_CONTAINS(top.hint(), "Model.MultiplierLimit, LayerType.<Type>.MultiplierLimit");
}

}  // namespace
}  // namespace kiln::hls

// ---- RTL directives: Loop.<name> and Buffer.<name> --------------------------------

namespace kiln::hls {
namespace {

TEST(ConfigDirectives, LoopAndBufferBlocksParseIntoTheLoopIrsDirectives) {
  const Config c = parse_config(
      "Loop:\n  fc/i:\n    Unroll: 4\n    Pipeline: 1\n  fc/j:\n    Unroll: FULL\n    Pipeline: "
      "off\nBuffer:\n  fc_w:\n    Partition: cyclic\n    Factor: 4\n    Dim: 1\n    Storage: "
      "bram\n",
      "config.yaml");
  const ConfiguredDirectives& d = c.directives;
  ASSERT_EQ(d.loops.size(), 2u);
  EXPECT_EQ(d.loops.at("fc/i"), (LoopDirectives{4, 1, false}));
  EXPECT_EQ(d.where_of_loop("fc/i"), "config.yaml: Loop.fc/i (line 2)");
  EXPECT_EQ(d.loops.at("fc/j"), (LoopDirectives{0, std::nullopt, false}));  // Pipeline off
  EXPECT_EQ(d.buffers.at("fc_w"),
            (BufferDirectives{BufferPartition::Cyclic, 4, 1, BufferStorage::Bram, {}}));
  EXPECT_EQ(d.where_of_buffer("fc_w"), "config.yaml: Buffer.fc_w (line 9)");
  EXPECT_EQ(d.where_of_buffer("other"), "Buffer.other");
  // Several dimensions partitioned completely: Dim as a list.
  const Config m =
      parse_config("Buffer:\n  w:\n    Partition: complete\n    Dim: [3, 4]\n", "config.yaml");
  EXPECT_EQ(m.directives.buffers.at("w"),
            (BufferDirectives{BufferPartition::Complete, 0, 3, BufferStorage::Auto, {4}}));
}

TEST(ConfigDirectives, LaterBlocksChangeOnlyTheKeysTheySet) {
  Config c = parse_config("Loop:\n  fc/i:\n    Pipeline: 2\n    Flatten: true\n", "a.yaml");
  merge_config(c, "Loop:\n  fc/i:\n    Unroll: 1\n", "b.yaml");
  EXPECT_EQ(c.directives.loops.at("fc/i"), (LoopDirectives{1, 2, true}));
  EXPECT_EQ(c.directives.where_of_loop("fc/i"), "b.yaml: Loop.fc/i (line 2)");
  merge_config(c, "Loop:\n  fc/i:\n    Pipeline: off\n    Flatten: false\n", "c.yaml");
  EXPECT_EQ(c.directives.loops.at("fc/i"), (LoopDirectives{1, std::nullopt, false}));
  const Error e =
      catch_error([&] { parse_config("Loop:\n  fc/i:\n    Pipeline: 3000000000\n", "big.yaml"); });
  EXPECT_CONTAINS(e.what_happened(), "an initiation interval of 3000000000 cycles");
}

TEST(ConfigDirectives, SetReachesLoopsAndBuffers) {
  Config c;
  apply_set(c, "Loop.n_0_Conv/kh.Unroll=5");
  apply_set(c, "Buffer.fc_w.Partition=complete");
  EXPECT_EQ(c.directives.loops.at("n_0_Conv/kh").unroll, 5);
  EXPECT_EQ(c.directives.where_of_loop("n_0_Conv/kh"), "--set: Loop.n_0_Conv/kh");
  EXPECT_EQ(c.directives.buffers.at("fc_w").partition, BufferPartition::Complete);
  const Error e = catch_error([&] { apply_set(c, "Loop.fc/i=2"); });
  EXPECT_CONTAINS(e.what_happened(), "expects Loop.<name>.<Key>");
}

TEST(ConfigDirectives, BadValuesNameTheKeyAndTheChoices) {
  Error e = parse_error("Loop:\n  fc/i:\n    Unroll: -2\n");
  EXPECT_CONTAINS(e.where(), "config.yaml: Loop.fc/i.Unroll");
  EXPECT_CONTAINS(e.what_happened(), "expects 'full' or a positive factor of the trip count");
  e = parse_error("Loop:\n  fc/i:\n    Pipeline: fast\n");
  EXPECT_CONTAINS(e.what_happened(), "expects a positive integer, got 'fast'");
  e = parse_error("LayerName:\n  fc1:\n    LatencyCycles: 400\n");
  EXPECT_CONTAINS(e.what_happened(), "LatencyCycles applies to the whole model");
  EXPECT_EQ(parse_config("Model:\n  LatencyCycles: 450\n", "c.yaml").latency_cycles, 450);
  e = parse_error("Loop:\n  fc/i:\n    Flatten: yes\n");
  EXPECT_CONTAINS(e.what_happened(), "expects true or false");
  EXPECT_EQ(parse_config("Loop:\n  fc/i:\n    Flatten: true\n", "c.yaml")
                .directives.loops.at("fc/i")
                .flatten,
            true);
  e = parse_error("Loop:\n  fc/i:\n    Unrol: 2\n");
  EXPECT_CONTAINS(e.what_happened(), "unknown loop key 'Unrol'");
  EXPECT_EQ(e.hint(), "did you mean 'Unroll'?");
  e = parse_error("Buffer:\n  fc_w:\n    Partition: diagonal\n");
  EXPECT_CONTAINS(e.what_happened(), "valid values: none, complete, cyclic, block");
  e = parse_error("Buffer:\n  fc_w:\n    Storage: uram\n");
  EXPECT_CONTAINS(e.what_happened(), "valid values: auto, registers, lutram, bram");
}

}  // namespace
}  // namespace kiln::hls
