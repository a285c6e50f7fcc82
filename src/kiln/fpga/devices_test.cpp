#include "kiln/fpga/devices.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kiln/support/testing/test_helpers.h"

namespace kiln::fpga {
namespace {

using kiln::testing::catch_error;

TEST(Devices, PartNamesWithPackageAndSpeedGrade) {
  EXPECT_EQ(device_of_part("xcvu9p-flga2104-2L-e").name, "xcvu9p");
  EXPECT_EQ(device_of_part("xc7z020clg400-1").name, "xc7z020");  // a package code, no '-'
  EXPECT_EQ(device_of_part("XC7A100TCSG324-1").name, "xc7a100t");
  EXPECT_EQ(device_of_part("xczu9eg-ffvb1156-2-e").family, Family::UltraScalePlus);
  EXPECT_EQ(device_of_part("xcku115-flvb2104-2-e").family, Family::UltraScale);
  EXPECT_EQ(device_of_part("xc7z020clg400-1").family, Family::Series7);
  EXPECT_FALSE(find_device("xcvu9").has_value());
  EXPECT_FALSE(find_device("xcu2000").has_value());  // a digit after the name: another part
  EXPECT_FALSE(find_device("").has_value());
}

TEST(Devices, Capacities) {
  const Device u280 = device_of_part("xcu280-fsvh2892-2L-e");
  EXPECT_EQ(u280.capacity.lut, 1303680);
  EXPECT_EQ(u280.capacity.ff, 2607360);
  EXPECT_EQ(u280.capacity.dsp, 9024);
  EXPECT_EQ(u280.capacity.bram18, 4032);
  EXPECT_EQ(u280.capacity.uram, 960);
  const Device z = device_of_part("xc7z020clg400-1");
  EXPECT_EQ(z.capacity.lut, 53200);
  EXPECT_EQ(z.capacity.dsp, 220);
  EXPECT_EQ(z.capacity.bram18, 280);
  // The list: every one is known.
  for (const char* p : {"xcvu9p", "xcvu13p", "xcu250", "xcu280", "xcku115", "xczu9eg", "xczu7ev",
                        "xc7z020", "xc7a100t"})
    EXPECT_TRUE(find_device(p).has_value()) << p;
}

TEST(Devices, UnknownPartNamesTheKnownOnes) {
  for (const char* part : {"xcvu7777p-flga2104-2L-e", "ep4ce22f17c6", ""}) {
    const Error e = catch_error([&] { device_of_part(part); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidModel);
    EXPECT_NE(e.message().find(std::string("Part ") + part), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("xcvu9p"), std::string::npos);
    EXPECT_NE(e.message().find("xc7z020"), std::string::npos);
  }
}

TEST(Devices, ShareAndOverCapacity) {
  const Device z = device_of_part("xc7z020clg400-1");
  Resources r;
  r.lut = 26600;
  r.dsp = 440;
  EXPECT_DOUBLE_EQ(share(r, z.capacity), 0.5 + 2.0);
  const std::vector<std::string> over = over_capacity(r, z.capacity);
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0], "DSP 440 of 220");
  r.uram = 1;  // the Z-7020 has none
  EXPECT_TRUE(std::isinf(share(r, z.capacity)));
}

// LUT RAM is checked against the SLICEMs' LUTs where the table has them
// (the Z-7020's 4,350 SLICEMs: 17,400 LUTs), not where it does not.
TEST(Devices, LutRamWithinTheSliceMs) {
  Resources r;
  r.lut = 30000;
  r.lutram = 26488;
  const std::vector<std::string> over = over_capacity(r, device_of_part("xc7z020").capacity);
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0], "LUTRAM 26488 of 17400");
  r.lutram = 17400;
  EXPECT_TRUE(over_capacity(r, device_of_part("xc7z020").capacity).empty());
  r.lutram = 1e9;
  EXPECT_TRUE(over_capacity(r, device_of_part("xcu280").capacity).empty());  // not known
}

TEST(Devices, Json) {
  const nlohmann::json j = device_json("xcu280-fsvh2892-2L-e", device_of_part("xcu280"));
  EXPECT_EQ(j["part"], "xcu280-fsvh2892-2L-e");
  EXPECT_EQ(j["lut"], 1303680);
  EXPECT_EQ(j["dsp"], 9024);
  EXPECT_EQ(j["bram18"], 4032);
  EXPECT_EQ(j["uram"], 960);
  EXPECT_EQ(j["family"], "ultrascale_plus");
}

TEST(Family, SynthNames) {
  EXPECT_STREQ(synth_family_name(Family::UltraScalePlus), "xcup");
  EXPECT_STREQ(synth_family_name(Family::UltraScale), "xcu");
  EXPECT_STREQ(synth_family_name(Family::Series7), "xc7");
}

TEST(Resources, SumScaleAndJson) {
  Resources a, b;
  a.lut = 10;
  a.srl = 2;
  b.lut = 0.5;
  b.dsp = 3;
  const Resources c = (a + b) * 2;
  EXPECT_DOUBLE_EQ(c.lut, 21);
  EXPECT_DOUBLE_EQ(c.srl, 4);
  EXPECT_DOUBLE_EQ(c.dsp, 6);
  const nlohmann::json j = to_json(c);
  EXPECT_TRUE(j["lut"].is_number_integer());  // whole numbers stay integers
  EXPECT_EQ(j["lut"], 21);
  EXPECT_TRUE(to_json(b)["lut"].is_number_float());
  EXPECT_EQ(resources_from_json(j, "test"), c);
  EXPECT_EQ(catch_error([] {
              resources_from_json({{"lut", "many"}}, "x");
            }).kind(),
            ErrorKind::InvalidModel);
}

}  // namespace
}  // namespace kiln::fpga
