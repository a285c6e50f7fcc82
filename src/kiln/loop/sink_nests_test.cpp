// Sinking nests: text in, text out on a padded, strided convolution and on a
// dense layer, and the interpreter against the emulator on the results (the
// zoo and coverage models: interpret_test.cpp, SunkNestsMatchEmulator).
#include "kiln/loop/sink_nests.h"

#include <gtest/gtest.h>

#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/loop/loop_text.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/testing/emulator_match.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::loop {
namespace {

// Lowers `layers`, sinks every kernel and prints the program.
std::string sunk(std::string_view layers, int* rewritten = nullptr) {
  const hls::Model m = hls::testing::parse(layers);
  Program p = lower_model(m);
  int n = 0;
  for (std::size_t k = 0; k < p.kernels.size(); ++k) n += sink_nests(p, static_cast<int>(k));
  if (rewritten) *rewritten = n;
  testing::expect_interpreter_matches(m, p, "sunk", 8);
  const std::string text = print_program(p);
  EXPECT_EQ(print_program(parse_program(text, "sunk.loop")), text);
  return text;
}

TEST(SinkNests, ConvolutionBecomesOnePerfectNest) {
  int rewritten = 0;
  const std::string text = sunk(R"(
model "t" {}
%x: ap_fixed<8,3>[3x3x2] = Input() @x "x"
%y: ap_fixed<16,6>[2x2x1] = Conv(%x) {in_h=3 in_w=3 c_in=2 out_h=2 out_w=2 c_out=1 kernel_h=2 kernel_w=2 stride_h=2 stride_w=2 pad_top=1 pad_bottom=0 pad_left=1 pad_right=0} @conv constants {weights=[1024,-512,256,2048,-3072,100,7,-9] bias=[64]}
input %x "x": [1x3x3x2] perm=[0,1,2]
output %y "y": [1x2x2x1] perm=[0,1,2]
)",
                                &rewritten);
  EXPECT_GT(rewritten, 0);
  const std::string want = kiln::testing::text_block(R"(
program "t"
buffer @x input ap_fixed<8,3> [3x3x2]
buffer @y output ap_fixed<16,6> [2x2x1]
buffer @conv_w const ap_fixed<16,6> [2x2x2x1] = [1024, -512, 256, 2048, -3072, 100, 7, -9]
buffer @conv_b const ap_fixed<16,6> [1] = [64]
buffer @conv_acc local ap_fixed<32,12> [1]
inputs @x
outputs @y
kernel conv "" reads @x @conv_w @conv_b writes @y locals @conv_acc {
  for %oh < 2 {
    for %ow < 2 {
      for %kh < 2 {
        for %kw < 2 {
          for %g < 1 {
            for %ci < 2 {
              for %co < 1 {
                if 0 <= %co < 1 {
                  if 0 <= %ci < 1 {
                    if 0 <= %g < 1 {
                      if 0 <= %kw < 1 {
                        if 0 <= %kh < 1 {
                          for %init < 1 {
                            %v0 = load @conv_b[%init] : ap_fixed<16,6>
                            %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
                            store @conv_acc[%init] = %v1
                          }
                        }
                      }
                    }
                  }
                }
                if 0 <= %oh*2 + %kh + -1 < 3, 0 <= %ow*2 + %kw + -1 < 3 {
                  %v2 = load @x[%oh*2 + %kh + -1, %ow*2 + %kw + -1, %g*2 + %ci] : ap_fixed<8,3>
                  %v3 = load @conv_w[%kh, %kw, %ci, %g + %co] : ap_fixed<16,6>
                  %v4 = load @conv_acc[%g + %co] : ap_fixed<32,12>
                  %v5 = mul %v2, %v3 : ap_fixed<24,9>
                  %v6 = add %v4, %v5 : ap_fixed<33,13>
                  %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
                  store @conv_acc[%g + %co] = %v7
                }
                if 0 <= %co < 1 {
                  if 1 <= %ci < 2 {
                    if 0 <= %g < 1 {
                      if 1 <= %kw < 2 {
                        if 1 <= %kh < 2 {
                          for %out < 1 {
                            %v8 = load @conv_acc[%out] : ap_fixed<32,12>
                            %v9 = quantize %v8 to ap_fixed<16,6> : ap_fixed<16,6>
                            store @y[%oh, %ow, %out] = %v9
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
)");
  EXPECT_EQ(text, want);
}

// With three output channels, the guarded loops that start and write out a
// pixel's accumulators are distributed over co: iteration c starts acc[c]
// from the bias where the window's first product is, and writes out y[.., c]
// where its last is. The init and out loops are gone; every access to the
// accumulators is at the element co, so a plan may keep co as a loop.
TEST(SinkNests, AccumulatorLoopsDistributeOverTheOutputChannels) {
  const std::string text = sunk(R"(
model "t" {}
%x: ap_fixed<8,3>[3x3x2] = Input() @x "x"
%y: ap_fixed<16,6>[2x2x3] = Conv(%x) {in_h=3 in_w=3 c_in=2 out_h=2 out_w=2 c_out=3 kernel_h=2 kernel_w=2 stride_h=2 stride_w=2 pad_top=1 pad_bottom=0 pad_left=1 pad_right=0} @conv constants {weights=[1024,-512,256,2048,-3072,100,7,-9,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] bias=[64,-32,5]}
input %x "x": [1x3x3x2] perm=[0,1,2]
output %y "y": [1x2x2x3] perm=[0,1,2]
)");
  const std::string want = kiln::testing::text_block(R"(
kernel conv "" reads @x @conv_w @conv_b writes @y locals @conv_acc {
  for %oh < 2 {
    for %ow < 2 {
      for %kh < 2 {
        for %kw < 2 {
          for %g < 1 {
            for %ci < 2 {
              for %co < 3 {
                if 0 <= %ci < 1 {
                  if 0 <= %g < 1 {
                    if 0 <= %kw < 1 {
                      if 0 <= %kh < 1 {
                        %v0 = load @conv_b[%g*3 + %co] : ap_fixed<16,6>
                        %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
                        store @conv_acc[%g*3 + %co] = %v1
                      }
                    }
                  }
                }
                if 0 <= %oh*2 + %kh + -1 < 3, 0 <= %ow*2 + %kw + -1 < 3 {
                  %v2 = load @x[%oh*2 + %kh + -1, %ow*2 + %kw + -1, %g*2 + %ci] : ap_fixed<8,3>
                  %v3 = load @conv_w[%kh, %kw, %ci, %g*3 + %co] : ap_fixed<16,6>
                  %v4 = load @conv_acc[%g*3 + %co] : ap_fixed<32,12>
                  %v5 = mul %v2, %v3 : ap_fixed<24,9>
                  %v6 = add %v4, %v5 : ap_fixed<33,13>
                  %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
                  store @conv_acc[%g*3 + %co] = %v7
                }
                if 1 <= %ci < 2 {
                  if 0 <= %g < 1 {
                    if 1 <= %kw < 2 {
                      if 1 <= %kh < 2 {
                        %v8 = load @conv_acc[%g*3 + %co] : ap_fixed<32,12>
                        %v9 = quantize %v8 to ap_fixed<16,6> : ap_fixed<16,6>
                        store @y[%oh, %ow, %g*3 + %co] = %v9
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
)");
  EXPECT_EQ(text.substr(text.find("kernel conv")), want);
}

// A depthwise convolution (a group per channel, one output channel each):
// the same over the group loop g, whose iteration c touches acc[c] alone.
TEST(SinkNests, AccumulatorLoopsDistributeOverTheGroupsOfADepthwiseConvolution) {
  const std::string text = sunk(R"(
model "t" {}
%x: ap_fixed<8,3>[3x3x2] = Input() @x "x"
%y: ap_fixed<16,6>[3x3x2] = Conv(%x) {in_h=3 in_w=3 c_in=2 out_h=3 out_w=3 c_out=2 groups=2 kernel_h=1 kernel_w=1 stride_h=1 stride_w=1 pad_top=0 pad_bottom=0 pad_left=0 pad_right=0} @conv constants {weights=[1024,-512] bias=[64,-32]}
input %x "x": [1x3x3x2] perm=[0,1,2]
output %y "y": [1x3x3x2] perm=[0,1,2]
)");
  const std::string want = kiln::testing::text_block(R"(
kernel conv "" reads @x @conv_w @conv_b writes @y locals @conv_acc {
  for %oh < 3 {
    for %ow < 3 {
      for %kh < 1 {
        for %kw < 1 {
          for %g < 2 {
            for %ci < 1 {
              for %co < 1 {
                %v0 = load @x[%oh + %kh, %ow + %kw, %g + %ci] : ap_fixed<8,3>
                if 0 <= %co < 1 {
                  if 0 <= %ci < 1 {
                    if 0 <= %kw < 1 {
                      if 0 <= %kh < 1 {
                        %v1 = load @conv_b[%g + %co] : ap_fixed<16,6>
                        %v2 = quantize %v1 to ap_fixed<32,12> : ap_fixed<32,12>
                        store @conv_acc[%g + %co] = %v2
                      }
                    }
                  }
                }
                %v3 = load @conv_w[%kh, %kw, %ci, %g + %co] : ap_fixed<16,6>
                %v4 = load @conv_acc[%g + %co] : ap_fixed<32,12>
                %v5 = mul %v0, %v3 : ap_fixed<24,9>
                %v6 = add %v4, %v5 : ap_fixed<33,13>
                %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
                store @conv_acc[%g + %co] = %v7
                if 0 <= %co < 1 {
                  if 0 <= %ci < 1 {
                    if 0 <= %kw < 1 {
                      if 0 <= %kh < 1 {
                        %v8 = load @conv_acc[%g + %co] : ap_fixed<32,12>
                        %v9 = quantize %v8 to ap_fixed<16,6> : ap_fixed<16,6>
                        store @y[%oh, %ow, %g + %co] = %v9
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
)");
  EXPECT_EQ(text.substr(text.find("kernel conv")), want);
}

// Sinks the kernels of a Loop IR program given as text and prints it.
std::string sunk_text(std::string_view program) {
  Program p = parse_program(program, "t.loop");
  for (std::size_t k = 0; k < p.kernels.size(); ++k) sink_nests(p, static_cast<int>(k));
  return print_program(p);
}

// What stays: a loop in a last-iteration guard that reads a sum every
// iteration adds to (a softmax's normalization), and one whose buffer the
// loop also reads at a fixed element.
TEST(SinkNests, LoopsThatNeedTheWholeLoopBeforeThemStay) {
  const std::string sum = kiln::testing::text_block(R"(
program "t"
buffer @x input ap_fixed<8,3> [3]
buffer @y output ap_fixed<16,6> [3]
buffer @s local ap_fixed<16,6> [1]
inputs @x
outputs @y
kernel k "" reads @x writes @y locals @s {
  for %j < 3 {
    %v0 = load @x[%j] : ap_fixed<8,3>
    %v1 = load @s[0] : ap_fixed<16,6>
    %v2 = add %v1, %v0 : ap_fixed<17,7>
    %v3 = quantize %v2 to ap_fixed<16,6> : ap_fixed<16,6>
    store @s[0] = %v3
    if 2 <= %j < 3 {
      for %o < 3 {
        %v4 = load @x[%o] : ap_fixed<8,3>
        %v5 = load @s[0] : ap_fixed<16,6>
        %v6 = mul %v4, %v5 : ap_fixed<24,9>
        %v7 = quantize %v6 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%o] = %v7
      }
    }
  }
}
)");
  EXPECT_EQ(sunk_text(sum), sum);
  const std::string fixed = kiln::testing::text_block(R"(
program "t"
buffer @x input ap_fixed<8,3> [3]
buffer @y output ap_fixed<16,6> [3]
buffer @a local ap_fixed<16,6> [3]
inputs @x
outputs @y
kernel k "" reads @x writes @y locals @a {
  for %j < 3 {
    if 0 <= %j < 1 {
      for %i < 3 {
        %v0 = load @x[%i] : ap_fixed<8,3>
        %v1 = quantize %v0 to ap_fixed<16,6> : ap_fixed<16,6>
        store @a[%i] = %v1
      }
    }
    %v2 = load @a[%j] : ap_fixed<16,6>
    %v3 = load @a[0] : ap_fixed<16,6>
    %v4 = add %v2, %v3 : ap_fixed<17,7>
    %v5 = quantize %v4 to ap_fixed<16,6> : ap_fixed<16,6>
    store @y[%j] = %v5
  }
}
)");
  EXPECT_EQ(sunk_text(fixed), fixed);
}

}  // namespace
}  // namespace kiln::loop
