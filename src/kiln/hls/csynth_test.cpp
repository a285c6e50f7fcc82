#include "kiln/hls/csynth.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"

namespace kiln::hls {
namespace {

// A report in the shape csynth.xml has: the fields kiln reads, among others.
const char* kVitisReport = R"(<?xml version="1.0" encoding="UTF-8"?>
<profile>
  <UserAssignments><TopModelName>mlp</TopModelName></UserAssignments>
  <PerformanceEstimates>
    <SummaryOfTimingAnalysis>
      <unit>ns</unit>
      <EstimatedClockPeriod>4.216</EstimatedClockPeriod>
    </SummaryOfTimingAnalysis>
    <SummaryOfOverallLatency>
      <Best-caseLatency>8001</Best-caseLatency>
      <Average-caseLatency>8001</Average-caseLatency>
      <Worst-caseLatency>8012</Worst-caseLatency>
      <Interval-min>8002</Interval-min>
      <Interval-max>8013</Interval-max>
    </SummaryOfOverallLatency>
  </PerformanceEstimates>
  <AreaEstimates>
    <Resources>
      <BRAM_18K>11</BRAM_18K>
      <DSP>9</DSP>
      <FF>1520</FF>
      <LUT>2875</LUT>
    </Resources>
    <AvailableResources>
      <BRAM_18K>280</BRAM_18K><DSP>220</DSP><FF>106400</FF><LUT>53200</LUT>
    </AvailableResources>
  </AreaEstimates>
</profile>
)";

TEST(Csynth, ReadsVitisLatencyIntervalClockAndTheUsedResourcesNotTheAvailable) {
  const CsynthReport r = parse_vitis_csynth_xml(kVitisReport, "mlp_csynth.xml");
  EXPECT_EQ(r.tool, HlsTool::Vitis);
  EXPECT_EQ(r.latency_best, 8001);
  EXPECT_EQ(r.latency_worst, 8012);
  EXPECT_EQ(r.interval, 8013);
  ASSERT_TRUE(r.clock_ns.has_value());
  EXPECT_DOUBLE_EQ(*r.clock_ns, 4.216);
  EXPECT_EQ(r.lut, 2875);
  EXPECT_EQ(r.ff, 1520);
  EXPECT_EQ(r.dsp, 9);
  EXPECT_EQ(r.bram18, 11);
  EXPECT_FALSE(r.simulated_cycles.has_value());
}

TEST(Csynth, AVitisLatencyOfUndefIsAbsentNotZero) {
  std::string xml = kVitisReport;
  xml.replace(xml.find("8012"), 4, "undef");
  EXPECT_FALSE(parse_vitis_csynth_xml(xml, "r.xml").latency_worst.has_value());
}

TEST(Csynth, AReportWithoutEstimatesIsRefusedNamingIt) {
  try {
    parse_vitis_csynth_xml("<profile></profile>", "x/top_csynth.xml");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
    EXPECT_EQ(e.where(), "x/top_csynth.xml");
  }
}

// Bambu's log lines (two simulated runs, a callee's figures before the top's).
const char* kBambuLog = R"(
Module binding information for function k0_Gemm:
    Estimated number of DSPs: 2
  Total number of flip-flops in function k0_Gemm: 400
Module binding information for function mlp:
    Number of modules instantiated: 125
    Total estimated area: 3904
    Estimated number of DSPs: 9
  Total number of flip-flops in function mlp: 3359
  Number of states: 41
1. Simulation completed with SUCCESS; Execution time 107958 cycles;
2. Simulation completed with SUCCESS; Execution time 107960 cycles;
)";

TEST(Csynth, ReadsBambusSimulatedCyclesAndTheTopFunctionsFigures) {
  const CsynthReport r = parse_bambu_log(kBambuLog, "bambu.log");
  EXPECT_EQ(r.tool, HlsTool::Bambu);
  EXPECT_EQ(r.simulated_runs, 2);
  EXPECT_EQ(r.simulated_cycles, 107959);
  EXPECT_EQ(r.dsp, 9);
  EXPECT_EQ(r.ff, 3359);
  EXPECT_EQ(r.bambu_area, 3904);
  EXPECT_EQ(r.bambu_states, 41);
  EXPECT_FALSE(r.lut.has_value());
}

TEST(Csynth, ABambuLogWithNoFiguresIsRefused) {
  EXPECT_THROW(parse_bambu_log("error -> Unable to parse the C\n", "bambu.log"), Error);
}

TEST(Csynth, AFolderForNoToolIsRefused) {
  EXPECT_THROW(project_tool(std::filesystem::temp_directory_path() / "kiln-no-such-project"),
               Error);
}

}  // namespace
}  // namespace kiln::hls
