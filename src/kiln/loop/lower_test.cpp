// Golden Loop IR of every layer kind: a tiny model in layer text, lowered and
// printed, compared with the expected program; each program also runs
// against the emulator on random inputs (outputs and per-layer events).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <string_view>

#include "kiln/hls/testing/layer_pass_testing.h"
#include "kiln/loop/loop_text.h"
#include "kiln/loop/lower_layers.h"
#include "kiln/loop/testing/emulator_match.h"
#include "kiln/support/testing/test_helpers.h"

namespace kiln::loop {
namespace {

// `mutate` edits the parsed model (a layer without biases, which the layer
// text cannot say: a parsed Dense or Conv has one bias per output).
void expect_lowering(std::string_view layers, std::string_view expected,
                     const std::function<void(hls::Model&)>& mutate = {}) {
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  hls::Model m = hls::testing::parse(layers);
  if (mutate) mutate(m);
  const Program p = lower_model(m);
  const std::string text = print_program(p);
  EXPECT_EQ(text, kiln::testing::text_block(expected));
  EXPECT_EQ(print_program(parse_program(text, name + ".loop")), text);
  testing::expect_interpreter_matches(m, p, name, 8);
}

TEST(LowerGolden, DenseBiasRelu) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[3] = Input() @x "x"
%y: ap_fixed<16,6>[2] = Dense(%x) {n_in=3 n_out=2 act={kind=Relu}} @fc constants {weights=[1024,-512,256,2048,-3072,100] bias=[512,-256]}
input %x "x": [1x3] perm=[0]
output %y "y": [1x2] perm=[0]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [3]
buffer @y output ap_fixed<16,6> [2]
buffer @fc_w const ap_fixed<16,6> [3x2] = [1024, -512, 256, 2048, -3072, 100]
buffer @fc_b const ap_fixed<16,6> [2] = [512, -256]
buffer @fc_acc local ap_fixed<32,12> [2]
inputs @x
outputs @y
kernel fc "" reads @x @fc_w @fc_b writes @y locals @fc_acc {
  for %init < 2 {
    %v0 = load @fc_b[%init] : ap_fixed<16,6>
    %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
    store @fc_acc[%init] = %v1
  }
  for %i < 3 {
    for %j < 2 {
      %v2 = load @x[%i] : ap_fixed<8,3>
      %v3 = load @fc_w[%i, %j] : ap_fixed<16,6>
      %v4 = load @fc_acc[%j] : ap_fixed<32,12>
      %v5 = mul %v2, %v3 : ap_fixed<24,9>
      %v6 = add %v4, %v5 : ap_fixed<33,13>
      %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
      store @fc_acc[%j] = %v7
    }
  }
  for %out < 2 {
    %v8 = load @fc_acc[%out] : ap_fixed<32,12>
    %v9 = const 0 : ap_ufixed<1,1>
    %v10 = max %v8, %v9 : ap_fixed<32,12>
    %v11 = quantize %v10 to ap_fixed<16,6> : ap_fixed<16,6>
    store @y[%out] = %v11
  }
}
)");
}

TEST(LowerGolden, DenseNoBiasLeakyRelu) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2] = Input() @x "x"
%y: ap_fixed<12,4>[2] = Dense(%x) {n_in=2 n_out=2 act={kind=LeakyRelu alpha=0.125}} @fc constants {weights=[1024,-512,256,2048] bias=[0,0]}
input %x "x": [1x2] perm=[0]
output %y "y": [1x2] perm=[0]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2]
buffer @y output ap_fixed<12,4> [2]
buffer @fc_w const ap_fixed<16,6> [2x2] = [1024, -512, 256, 2048]
buffer @fc_acc local ap_fixed<32,12> [2]
inputs @x
outputs @y
kernel fc "" reads @x @fc_w writes @y locals @fc_acc {
  for %init < 2 {
    %v0 = const 0 : ap_ufixed<1,1>
    %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
    store @fc_acc[%init] = %v1
  }
  for %i < 2 {
    for %j < 2 {
      %v2 = load @x[%i] : ap_fixed<8,3>
      %v3 = load @fc_w[%i, %j] : ap_fixed<16,6>
      %v4 = load @fc_acc[%j] : ap_fixed<32,12>
      %v5 = mul %v2, %v3 : ap_fixed<24,9>
      %v6 = add %v4, %v5 : ap_fixed<33,13>
      %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
      store @fc_acc[%j] = %v7
    }
  }
  for %out < 2 {
    %v8 = load @fc_acc[%out] : ap_fixed<32,12>
    %v9 = const 0 : ap_ufixed<1,1>
    %v10 = lt %v8, %v9 : ap_ufixed<1,1>
    %v11 = const 8192 : ap_fixed<24,8>
    %v12 = mul %v8, %v11 : ap_fixed<56,20>
    %v13 = select %v10, %v12, %v8 : ap_fixed<56,20>
    %v14 = quantize %v13 to ap_fixed<12,4> : ap_fixed<12,4>
    store @y[%out] = %v14
  }
}
)",
                  [](hls::Model& m) { m.layers.at(1).bias.clear(); });
}

TEST(LowerGolden, DenseRowsClip) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2] = Input() @x "x"
%y: ap_fixed<16,6>[2x2] = Dense(%x) {n_in=2 n_out=2 act={kind=Clip alpha=-1 beta=1.5}} @fc constants {weights=[1024,-512,256,2048] bias=[0,300]}
input %x "x": [1x2x2] perm=[0,1]
output %y "y": [1x2x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<16,6> [2x2]
buffer @fc_w const ap_fixed<16,6> [2x2] = [1024, -512, 256, 2048]
buffer @fc_b const ap_fixed<16,6> [2] = [0, 300]
buffer @fc_acc local ap_fixed<32,12> [2]
inputs @x
outputs @y
kernel fc "" reads @x @fc_w @fc_b writes @y locals @fc_acc {
  for %r < 2 {
    for %init < 2 {
      %v0 = load @fc_b[%init] : ap_fixed<16,6>
      %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
      store @fc_acc[%init] = %v1
    }
    for %i < 2 {
      for %j < 2 {
        %v2 = load @x[%r, %i] : ap_fixed<8,3>
        %v3 = load @fc_w[%i, %j] : ap_fixed<16,6>
        %v4 = load @fc_acc[%j] : ap_fixed<32,12>
        %v5 = mul %v2, %v3 : ap_fixed<24,9>
        %v6 = add %v4, %v5 : ap_fixed<33,13>
        %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
        store @fc_acc[%j] = %v7
      }
    }
    for %out < 2 {
      %v8 = load @fc_acc[%out] : ap_fixed<32,12>
      %v9 = const -65536 : ap_fixed<24,8>
      %v10 = max %v8, %v9 : ap_fixed<32,12>
      %v11 = const 98304 : ap_fixed<24,8>
      %v12 = min %v10, %v11 : ap_fixed<32,12>
      %v13 = quantize %v12 to ap_fixed<16,6> : ap_fixed<16,6>
      store @y[%r, %out] = %v13
    }
  }
}
)");
}

TEST(LowerGolden, Conv2dPaddingStride) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[3x3x2] = Input() @x "x"
%y: ap_fixed<16,6>[2x2x1] = Conv(%x) {in_h=3 in_w=3 c_in=2 out_h=2 out_w=2 c_out=1 kernel_h=2 kernel_w=2 stride_h=2 stride_w=2 pad_top=1 pad_bottom=0 pad_left=1 pad_right=0} @conv constants {weights=[1024,-512,256,2048,-3072,100,7,-9] bias=[64]}
input %x "x": [1x3x3x2] perm=[0,1,2]
output %y "y": [1x2x2x1] perm=[0,1,2]
)",
                  R"(
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
      for %init < 1 {
        %v0 = load @conv_b[%init] : ap_fixed<16,6>
        %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
        store @conv_acc[%init] = %v1
      }
      for %kh < 2 {
        for %kw < 2 {
          if 0 <= %oh*2 + %kh + -1 < 3, 0 <= %ow*2 + %kw + -1 < 3 {
            for %g < 1 {
              for %ci < 2 {
                %v2 = load @x[%oh*2 + %kh + -1, %ow*2 + %kw + -1, %g*2 + %ci] : ap_fixed<8,3>
                for %co < 1 {
                  %v3 = load @conv_w[%kh, %kw, %ci, %g + %co] : ap_fixed<16,6>
                  %v4 = load @conv_acc[%g + %co] : ap_fixed<32,12>
                  %v5 = mul %v2, %v3 : ap_fixed<24,9>
                  %v6 = add %v4, %v5 : ap_fixed<33,13>
                  %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
                  store @conv_acc[%g + %co] = %v7
                }
              }
            }
          }
        }
      }
      for %out < 1 {
        %v8 = load @conv_acc[%out] : ap_fixed<32,12>
        %v9 = quantize %v8 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%oh, %ow, %out] = %v9
      }
    }
  }
}
)");
}

TEST(LowerGolden, Conv1d) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[3x1] = Input() @x "x"
%y: ap_fixed<16,6>[2x2] = Conv(%x) {dims=1 in_w=3 c_in=1 out_w=2 c_out=2 kernel_w=2} @conv constants {weights=[1024,-512,256,2048] bias=[1,-1]}
input %x "x": [1x3x1] perm=[0,1]
output %y "y": [1x2x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [3x1]
buffer @y output ap_fixed<16,6> [2x2]
buffer @x_view tensor ap_fixed<8,3> [1x3x1] alias @x
buffer @y_view tensor ap_fixed<16,6> [1x2x2] alias @y
buffer @conv_w const ap_fixed<16,6> [1x2x1x2] = [1024, -512, 256, 2048]
buffer @conv_b const ap_fixed<16,6> [2] = [1, -1]
buffer @conv_acc local ap_fixed<32,12> [2]
inputs @x
outputs @y
kernel conv "" reads @x_view @conv_w @conv_b writes @y_view locals @conv_acc {
  for %oh < 1 {
    for %ow < 2 {
      for %init < 2 {
        %v0 = load @conv_b[%init] : ap_fixed<16,6>
        %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
        store @conv_acc[%init] = %v1
      }
      for %kh < 1 {
        for %kw < 2 {
          for %g < 1 {
            for %ci < 1 {
              %v2 = load @x_view[%oh + %kh, %ow + %kw, %g + %ci] : ap_fixed<8,3>
              for %co < 2 {
                %v3 = load @conv_w[%kh, %kw, %ci, %g*2 + %co] : ap_fixed<16,6>
                %v4 = load @conv_acc[%g*2 + %co] : ap_fixed<32,12>
                %v5 = mul %v2, %v3 : ap_fixed<24,9>
                %v6 = add %v4, %v5 : ap_fixed<33,13>
                %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
                store @conv_acc[%g*2 + %co] = %v7
              }
            }
          }
        }
      }
      for %out < 2 {
        %v8 = load @conv_acc[%out] : ap_fixed<32,12>
        %v9 = quantize %v8 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y_view[%oh, %ow, %out] = %v9
      }
    }
  }
}
)");
}

TEST(LowerGolden, DepthwiseConv) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2x2] = Input() @x "x"
%y: ap_fixed<16,6>[1x1x2] = Conv(%x) {in_h=2 in_w=2 c_in=2 out_h=1 out_w=1 c_out=2 kernel_h=2 kernel_w=2 groups=2} @dw constants {weights=[1024,-512,256,2048,-3072,100,7,-9] bias=[0,0]}
input %x "x": [1x2x2x2] perm=[0,1,2]
output %y "y": [1x1x1x2] perm=[0,1,2]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2x2]
buffer @y output ap_fixed<16,6> [1x1x2]
buffer @dw_w const ap_fixed<16,6> [2x2x1x2] = [1024, -512, 256, 2048, -3072, 100, 7, -9]
buffer @dw_acc local ap_fixed<32,12> [2]
inputs @x
outputs @y
kernel dw "" reads @x @dw_w writes @y locals @dw_acc {
  for %oh < 1 {
    for %ow < 1 {
      for %init < 2 {
        %v0 = const 0 : ap_ufixed<1,1>
        %v1 = quantize %v0 to ap_fixed<32,12> : ap_fixed<32,12>
        store @dw_acc[%init] = %v1
      }
      for %kh < 2 {
        for %kw < 2 {
          for %g < 2 {
            for %ci < 1 {
              %v2 = load @x[%oh + %kh, %ow + %kw, %g + %ci] : ap_fixed<8,3>
              for %co < 1 {
                %v3 = load @dw_w[%kh, %kw, %ci, %g + %co] : ap_fixed<16,6>
                %v4 = load @dw_acc[%g + %co] : ap_fixed<32,12>
                %v5 = mul %v2, %v3 : ap_fixed<24,9>
                %v6 = add %v4, %v5 : ap_fixed<33,13>
                %v7 = quantize %v6 to ap_fixed<32,12> : ap_fixed<32,12>
                store @dw_acc[%g + %co] = %v7
              }
            }
          }
        }
      }
      for %out < 2 {
        %v8 = load @dw_acc[%out] : ap_fixed<32,12>
        %v9 = quantize %v8 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%oh, %ow, %out] = %v9
      }
    }
  }
}
)",
                  [](hls::Model& m) { m.layers.at(1).bias.clear(); });
}

TEST(LowerGolden, MaxPoolPadded) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2x1] = Input() @x "x"
%y: ap_fixed<6,2>[2x2x1] = Pool(%x) {kind=Max in_h=2 in_w=2 channels=1 out_h=2 out_w=2 kernel_h=2 kernel_w=2 pad_top=1 pad_left=1} @pool
input %x "x": [1x2x2x1] perm=[0,1,2]
output %y "y": [1x2x2x1] perm=[0,1,2]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2x1]
buffer @y output ap_fixed<6,2> [2x2x1]
buffer @pool_acc local ap_fixed<8,3> [1]
buffer @pool_any local ap_ufixed<1,1> [1]
inputs @x
outputs @y
kernel pool "" reads @x writes @y locals @pool_acc @pool_any {
  for %oh < 2 {
    for %ow < 2 {
      for %c < 1 {
        %v0 = const -128 : ap_fixed<8,3>
        store @pool_acc[0] = %v0
        %v1 = const 0 : ap_ufixed<1,1>
        store @pool_any[0] = %v1
        for %kh < 2 {
          for %kw < 2 {
            if 0 <= %oh + %kh + -1 < 2, 0 <= %ow + %kw + -1 < 2 {
              %v2 = load @x[%oh + %kh + -1, %ow + %kw + -1, %c] : ap_fixed<8,3>
              %v3 = load @pool_acc[0] : ap_fixed<8,3>
              %v4 = max %v3, %v2 : ap_fixed<8,3>
              store @pool_acc[0] = %v4
              %v5 = const 1 : ap_ufixed<1,1>
              store @pool_any[0] = %v5
            }
          }
        }
        %v6 = load @pool_acc[0] : ap_fixed<8,3>
        %v7 = load @pool_any[0] : ap_ufixed<1,1>
        %v8 = const 0 : ap_ufixed<1,1>
        %v9 = select %v7, %v6, %v8 : ap_fixed<8,3>
        %v10 = quantize %v9 to ap_fixed<6,2> : ap_fixed<6,2>
        store @y[%oh, %ow, %c] = %v10
      }
    }
  }
}
)");
}

TEST(LowerGolden, AveragePoolPadded) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2x1] = Input() @x "x"
%y: ap_fixed<16,6>[2x2x1] = Pool(%x) {kind=Average in_h=2 in_w=2 channels=1 out_h=2 out_w=2 kernel_h=2 kernel_w=2 pad_top=1 pad_left=1} @pool config {accum=ap_fixed<12,5>}
input %x "x": [1x2x2x1] perm=[0,1,2]
output %y "y": [1x2x2x1] perm=[0,1,2]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2x1]
buffer @y output ap_fixed<16,6> [2x2x1]
buffer @pool_recip const ap_fixed<24,8> [2x2] = [65536, 32768, 32768, 16384]
buffer @pool_acc local ap_fixed<12,5> [1]
inputs @x
outputs @y
kernel pool "" reads @x @pool_recip writes @y locals @pool_acc {
  for %oh < 2 {
    for %ow < 2 {
      for %c < 1 {
        %v0 = const 0 : ap_fixed<12,5>
        store @pool_acc[0] = %v0
        for %kh < 2 {
          for %kw < 2 {
            if 0 <= %oh + %kh + -1 < 2, 0 <= %ow + %kw + -1 < 2 {
              %v1 = load @x[%oh + %kh + -1, %ow + %kw + -1, %c] : ap_fixed<8,3>
              %v2 = load @pool_acc[0] : ap_fixed<12,5>
              %v3 = add %v2, %v1 : ap_fixed<13,6>
              %v4 = quantize %v3 to ap_fixed<12,5> : ap_fixed<12,5>
              store @pool_acc[0] = %v4
            }
          }
        }
        %v5 = load @pool_acc[0] : ap_fixed<12,5>
        %v6 = load @pool_recip[%oh, %ow] : ap_fixed<24,8>
        %v7 = mul %v5, %v6 : ap_fixed<36,13>
        %v8 = quantize %v7 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%oh, %ow, %c] = %v8
      }
    }
  }
}
)");
}

TEST(LowerGolden, ZeroPad) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2x1] = Input() @x "x"
%y: ap_fixed<6,2>[4x2x1] = ZeroPad(%x) {in_h=2 in_w=2 channels=1 pad_top=1 stride_h=2} @pad
input %x "x": [1x2x2x1] perm=[0,1,2]
output %y "y": [1x4x2x1] perm=[0,1,2]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2x1]
buffer @y output ap_fixed<6,2> [4x2x1]
inputs @x
outputs @y
kernel pad "" reads @x writes @y locals {
  for %z0 < 4 {
    for %z1 < 2 {
      for %z2 < 1 {
        %v0 = const 0 : ap_fixed<6,2>
        store @y[%z0, %z1, %z2] = %v0
      }
    }
  }
  for %d0 < 2 {
    for %d1 < 2 {
      for %d2 < 1 {
        %v1 = load @x[%d0, %d1, %d2] : ap_fixed<8,3>
        %v2 = quantize %v1 to ap_fixed<6,2> : ap_fixed<6,2>
        store @y[%d0*2 + 1, %d1, %d2] = %v2
      }
    }
  }
}
)");
}

// Without strides, one nest over the output's pixels writes each once: the
// input's pixel where it falls, a zero elsewhere (a plan keeps the pixel loop).
TEST(LowerGolden, ZeroPadWithoutStridesIsOneNest) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[1x2x1] = Input() @x "x"
%y: ap_fixed<6,2>[2x3x1] = ZeroPad(%x) {in_h=1 in_w=2 channels=1 pad_top=1 pad_left=1} @pad
input %x "x": [1x1x2x1] perm=[0,1,2]
output %y "y": [1x2x3x1] perm=[0,1,2]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [1x2x1]
buffer @y output ap_fixed<6,2> [2x3x1]
inputs @x
outputs @y
kernel pad "" reads @x writes @y locals {
  for %oh < 2 {
    for %ow < 3 {
      for %c < 1 {
        if 1 <= %oh < 2, 1 <= %ow < 3 {
          %v0 = load @x[%oh + -1, %ow + -1, %c] : ap_fixed<8,3>
          %v1 = quantize %v0 to ap_fixed<6,2> : ap_fixed<6,2>
          store @y[%oh, %ow, %c] = %v1
        }
        if 0 <= %oh < 1 {
          %v2 = const 0 : ap_fixed<6,2>
          store @y[%oh, %ow, %c] = %v2
        }
        if 1 <= %oh < 2, 0 <= %ow < 1 {
          %v3 = const 0 : ap_fixed<6,2>
          store @y[%oh, %ow, %c] = %v3
        }
      }
    }
  }
}
)");
}

TEST(LowerGolden, MatMul) {
  expect_lowering(R"(
model "t" {}
%a: ap_fixed<8,3>[2x2] = Input() @a "a"
%b: ap_fixed<8,3>[2x2] = Input() @b "b"
%y: ap_fixed<16,6>[2x2] = MatMul(%a, %b) {m=2 k=2 n=2} @mm config {accum=ap_fixed<12,4>}
input %a "a": [1x2x2] perm=[0,1]
input %b "b": [1x2x2] perm=[0,1]
output %y "y": [1x2x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @a input ap_fixed<8,3> [2x2]
buffer @b input ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<16,6> [2x2]
buffer @a_view tensor ap_fixed<8,3> [1x2x2] alias @a
buffer @b_view tensor ap_fixed<8,3> [1x2x2] alias @b
buffer @y_view tensor ap_fixed<16,6> [1x2x2] alias @y
buffer @mm_acc local ap_fixed<12,4> [1]
inputs @a @b
outputs @y
kernel mm "" reads @a_view @b_view writes @y_view locals @mm_acc {
  for %t < 1 {
    for %i < 2 {
      for %j < 2 {
        %v0 = const 0 : ap_fixed<12,4>
        store @mm_acc[0] = %v0
        for %q < 2 {
          %v1 = load @a_view[%t, %i, %q] : ap_fixed<8,3>
          %v2 = load @b_view[%t, %q, %j] : ap_fixed<8,3>
          %v3 = load @mm_acc[0] : ap_fixed<12,4>
          %v4 = mul %v1, %v2 : ap_fixed<16,6>
          %v5 = add %v3, %v4 : ap_fixed<17,7>
          %v6 = quantize %v5 to ap_fixed<12,4> : ap_fixed<12,4>
          store @mm_acc[0] = %v6
        }
        %v7 = load @mm_acc[0] : ap_fixed<12,4>
        %v8 = quantize %v7 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y_view[%t, %i, %j] = %v8
      }
    }
  }
}
)");
}

TEST(LowerGolden, BatchNorm) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2] = Input() @x "x"
%y: ap_fixed<10,4>[2x2] = BatchNorm(%x) {n=4 channels=2} @bn constants {weights=[1024,-2048] bias=[512,-30]}
input %x "x": [1x2x2] perm=[0,1]
output %y "y": [1x2x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<10,4> [2x2]
buffer @bn_scale const ap_fixed<16,6> [2] = [1024, -2048]
buffer @bn_bias const ap_fixed<16,6> [2] = [512, -30]
inputs @x
outputs @y
kernel bn "" reads @x @bn_scale @bn_bias writes @y locals {
  for %d0 < 2 {
    for %d1 < 2 {
      %v0 = load @x[%d0, %d1] : ap_fixed<8,3>
      %v1 = load @bn_scale[%d1] : ap_fixed<16,6>
      %v2 = mul %v0, %v1 : ap_fixed<24,9>
      %v3 = load @bn_bias[%d1] : ap_fixed<16,6>
      %v4 = add %v2, %v3 : ap_fixed<25,10>
      %v5 = quantize %v4 to ap_fixed<10,4> : ap_fixed<10,4>
      store @y[%d0, %d1] = %v5
    }
  }
}
)");
}

TEST(LowerGolden, SigmoidTable) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2] = Input() @x "x"
%y: ap_fixed<10,2>[2] = Activation(%x) {n=2 channels=2 act={kind=Sigmoid}} @sig config {tables={table_size=8}}
input %x "x": [1x2] perm=[0]
output %y "y": [1x2] perm=[0]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2]
buffer @y output ap_fixed<10,2> [2]
buffer @sig_table const ap_fixed<18,8> [8] = [0, 6, 48, 275, 748, 975, 1017, 1023]
inputs @x
outputs @y
kernel sig "" reads @x @sig_table writes @y locals {
  for %d0 < 2 {
    %v0 = load @x[%d0] : ap_fixed<8,3>
    %v1 = lookup @sig_table[%v0] shift -1 offset 4 : ap_fixed<18,8>
    %v2 = quantize %v1 to ap_fixed<10,2> : ap_fixed<10,2>
    store @y[%d0] = %v2
  }
}
)");
}

TEST(LowerGolden, PRelu) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2] = Input() @x "x"
%y: ap_fixed<10,4>[2x2] = Activation(%x) {n=4 channels=2 act={kind=PRelu}} @prelu constants {weights=[256,-128]}
input %x "x": [1x2x2] perm=[0,1]
output %y "y": [1x2x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<10,4> [2x2]
buffer @prelu_slope const ap_fixed<16,6> [2] = [256, -128]
inputs @x
outputs @y
kernel prelu "" reads @x @prelu_slope writes @y locals {
  for %d0 < 2 {
    for %d1 < 2 {
      %v0 = load @x[%d0, %d1] : ap_fixed<8,3>
      %v1 = const 0 : ap_ufixed<1,1>
      %v2 = lt %v0, %v1 : ap_ufixed<1,1>
      %v3 = load @prelu_slope[%d1] : ap_fixed<16,6>
      %v4 = mul %v0, %v3 : ap_fixed<24,9>
      %v5 = select %v2, %v4, %v0 : ap_fixed<24,9>
      %v6 = quantize %v5 to ap_fixed<10,4> : ap_fixed<10,4>
      store @y[%d0, %d1] = %v6
    }
  }
}
)");
}

TEST(LowerGolden, HardSwish) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2] = Input() @x "x"
%y: ap_fixed<10,4>[2] = Activation(%x) {n=2 channels=2 act={kind=HardSwish alpha=0.25 beta=0.5}} @hs
input %x "x": [1x2] perm=[0]
output %y "y": [1x2] perm=[0]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2]
buffer @y output ap_fixed<10,4> [2]
inputs @x
outputs @y
kernel hs "" reads @x writes @y locals {
  for %d0 < 2 {
    %v0 = load @x[%d0] : ap_fixed<8,3>
    %v1 = const 16384 : ap_fixed<24,8>
    %v2 = mul %v1, %v0 : ap_fixed<32,11>
    %v3 = const 32768 : ap_fixed<24,8>
    %v4 = add %v2, %v3 : ap_fixed<33,12>
    %v5 = const 0 : ap_ufixed<1,1>
    %v6 = max %v4, %v5 : ap_fixed<33,12>
    %v7 = const 1 : ap_ufixed<2,2>
    %v8 = min %v6, %v7 : ap_fixed<33,12>
    %v9 = mul %v0, %v8 : ap_fixed<41,15>
    %v10 = quantize %v9 to ap_fixed<10,4> : ap_fixed<10,4>
    store @y[%d0] = %v10
  }
}
)");
}

TEST(LowerGolden, Softmax) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2] = Input() @x "x"
%y: ap_fixed<10,2>[2x2] = Softmax(%x) {rows=2 length=2} @sm config {tables={table_size=8 inv_table_size=8}}
input %x "x": [1x2x2] perm=[0,1]
output %y "y": [1x2x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<10,2> [2x2]
buffer @sm_exp const ap_fixed<18,8> [8] = [1024, 376, 138, 50, 18, 6, 2, 0]
buffer @sm_inv const ap_ufixed<18,8> [8] = [8192, 2730, 1638, 1170, 910, 744, 630, 546]
buffer @sm_max local ap_fixed<8,3> [1]
buffer @sm_sum local ap_fixed<32,12> [1]
buffer @sm_e local ap_fixed<18,8> [2]
inputs @x
outputs @y
kernel sm "" reads @x @sm_exp @sm_inv writes @y locals @sm_max @sm_sum @sm_e {
  for %r < 2 {
    %v0 = load @x[%r, 0] : ap_fixed<8,3>
    store @sm_max[0] = %v0
    for %i < 1 {
      %v1 = load @x[%r, %i + 1] : ap_fixed<8,3>
      %v2 = load @sm_max[0] : ap_fixed<8,3>
      %v3 = max %v2, %v1 : ap_fixed<8,3>
      store @sm_max[0] = %v3
    }
    %v4 = const 0 : ap_fixed<32,12>
    store @sm_sum[0] = %v4
    for %e < 2 {
      %v5 = load @sm_max[0] : ap_fixed<8,3>
      %v6 = load @x[%r, %e] : ap_fixed<8,3>
      %v7 = sub %v5, %v6 : ap_fixed<9,4>
      %v8 = lookup @sm_exp[%v7] shift 0 offset 0 : ap_fixed<18,8>
      store @sm_e[%e] = %v8
      %v9 = load @sm_sum[0] : ap_fixed<32,12>
      %v10 = add %v9, %v8 : ap_fixed<33,13>
      %v11 = quantize %v10 to ap_fixed<32,12> : ap_fixed<32,12>
      store @sm_sum[0] = %v11
    }
    %v12 = load @sm_sum[0] : ap_fixed<32,12>
    %v13 = lookup @sm_inv[%v12] shift 2 offset 0 : ap_ufixed<18,8>
    for %out < 2 {
      %v14 = load @sm_e[%out] : ap_fixed<18,8>
      %v15 = mul %v14, %v13 : ap_fixed<36,16>
      %v16 = quantize %v15 to ap_fixed<10,2> : ap_fixed<10,2>
      store @y[%r, %out] = %v16
    }
  }
}
)");
}

// LogSoftmax: the Softmax kernel without the e_i buffer; the log table
// (log((j + 0.5) / 4) in 10 fraction bits) and (x_i - m) - log in place of
// e_i * inv.
TEST(LowerGolden, LogSoftmax) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2] = Input() @x "x"
%y: ap_fixed<10,4>[2x2] = Softmax(%x) {rows=2 length=2 log=true} @lsm config {tables={table_size=8 inv_table_size=8}}
input %x "x": [1x2x2] perm=[0,1]
output %y "y": [1x2x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<10,4> [2x2]
buffer @lsm_exp const ap_fixed<18,8> [8] = [1024, 376, 138, 50, 18, 6, 2, 0]
buffer @lsm_log const ap_fixed<18,8> [8] = [-2130, -1005, -482, -137, 120, 326, 497, 643]
buffer @lsm_max local ap_fixed<8,3> [1]
buffer @lsm_sum local ap_fixed<32,12> [1]
inputs @x
outputs @y
kernel lsm "" reads @x @lsm_exp @lsm_log writes @y locals @lsm_max @lsm_sum {
  for %r < 2 {
    %v0 = load @x[%r, 0] : ap_fixed<8,3>
    store @lsm_max[0] = %v0
    for %i < 1 {
      %v1 = load @x[%r, %i + 1] : ap_fixed<8,3>
      %v2 = load @lsm_max[0] : ap_fixed<8,3>
      %v3 = max %v2, %v1 : ap_fixed<8,3>
      store @lsm_max[0] = %v3
    }
    %v4 = const 0 : ap_fixed<32,12>
    store @lsm_sum[0] = %v4
    for %e < 2 {
      %v5 = load @lsm_max[0] : ap_fixed<8,3>
      %v6 = load @x[%r, %e] : ap_fixed<8,3>
      %v7 = sub %v5, %v6 : ap_fixed<9,4>
      %v8 = lookup @lsm_exp[%v7] shift 0 offset 0 : ap_fixed<18,8>
      %v9 = load @lsm_sum[0] : ap_fixed<32,12>
      %v10 = add %v9, %v8 : ap_fixed<33,13>
      %v11 = quantize %v10 to ap_fixed<32,12> : ap_fixed<32,12>
      store @lsm_sum[0] = %v11
    }
    %v12 = load @lsm_sum[0] : ap_fixed<32,12>
    %v13 = lookup @lsm_log[%v12] shift 2 offset 0 : ap_fixed<18,8>
    for %out < 2 {
      %v14 = load @lsm_max[0] : ap_fixed<8,3>
      %v15 = load @x[%r, %out] : ap_fixed<8,3>
      %v16 = sub %v15, %v14 : ap_fixed<9,4>
      %v17 = sub %v16, %v13 : ap_fixed<19,9>
      %v18 = quantize %v17 to ap_fixed<10,4> : ap_fixed<10,4>
      store @y[%r, %out] = %v18
    }
  }
}
)");
}

TEST(LowerGolden, BinaryBroadcasts) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2] = Input() @x "x"
%z: ap_fixed<8,3>[2x2] = Input() @z "z"
%c: ap_fixed<8,3>[1x2] = Input() @c "c"
%p: ap_fixed<8,3>[2x1] = Input() @p "p"
%s: ap_fixed<8,3>[2x2] = Binary(%x, %z) {op=Add n=4 channels=2} @add
%m: ap_fixed<8,3>[2x2] = Binary(%s, %c) {op=Mul n=4 channels=2 broadcast=PerChannel} @mul
%y: ap_fixed<8,3>[2x2] = Binary(%m, %p) {op=ReverseSub n=4 channels=2 broadcast=PerPixel} @rsub
input %x "x": [1x2x2] perm=[0,1]
input %z "z": [1x2x2] perm=[0,1]
input %c "c": [1x1x2] perm=[0,1]
input %p "p": [1x2x1] perm=[0,1]
output %y "y": [1x2x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @z input ap_fixed<8,3> [2x2]
buffer @c input ap_fixed<8,3> [1x2]
buffer @p input ap_fixed<8,3> [2x1]
buffer @s tensor ap_fixed<8,3> [2x2]
buffer @m tensor ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<8,3> [2x2]
inputs @x @z @c @p
outputs @y
kernel add "" reads @x @z writes @s locals {
  for %d0 < 2 {
    for %d1 < 2 {
      %v0 = load @x[%d0, %d1] : ap_fixed<8,3>
      %v1 = load @z[%d0, %d1] : ap_fixed<8,3>
      %v2 = add %v0, %v1 : ap_fixed<9,4>
      %v3 = quantize %v2 to ap_fixed<8,3> : ap_fixed<8,3>
      store @s[%d0, %d1] = %v3
    }
  }
}
kernel mul "" reads @s @c writes @m locals {
  for %d0 < 2 {
    for %d1 < 2 {
      %v0 = load @s[%d0, %d1] : ap_fixed<8,3>
      %v1 = load @c[0, %d1] : ap_fixed<8,3>
      %v2 = mul %v0, %v1 : ap_fixed<16,6>
      %v3 = quantize %v2 to ap_fixed<8,3> : ap_fixed<8,3>
      store @m[%d0, %d1] = %v3
    }
  }
}
kernel rsub "" reads @m @p writes @y locals {
  for %d0 < 2 {
    for %d1 < 2 {
      %v0 = load @m[%d0, %d1] : ap_fixed<8,3>
      %v1 = load @p[%d0, 0] : ap_fixed<8,3>
      %v2 = sub %v1, %v0 : ap_fixed<9,4>
      %v3 = quantize %v2 to ap_fixed<8,3> : ap_fixed<8,3>
      store @y[%d0, %d1] = %v3
    }
  }
}
)");
}

TEST(LowerGolden, Quantize) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<16,6>[2] = Input() @x "x"
%y: ap_fixed<8,3,AP_RND_CONV,AP_SAT>[2] = Quantize(%x) {format=ap_fixed<8,3,AP_RND_CONV,AP_SAT> min_raw=-100 max_raw=120 scale=0.03125} @q
input %x "x": [1x2] perm=[0]
output %y "y": [1x2] perm=[0]
)",
                  R"(
program "t"
buffer @x input ap_fixed<16,6> [2]
buffer @y output ap_fixed<8,3> [2]
inputs @x
outputs @y
kernel q "" reads @x writes @y locals {
  for %d0 < 2 {
    %v0 = load @x[%d0] : ap_fixed<16,6>
    %v1 = const 120 : ap_fixed<8,3>
    %v2 = const -100 : ap_fixed<8,3>
    %v3 = quantize %v0 to ap_fixed<8,3,AP_RND_CONV,AP_SAT> : ap_fixed<8,3>
    %v4 = min %v3, %v1 : ap_fixed<8,3>
    %v5 = max %v4, %v2 : ap_fixed<8,3>
    store @y[%d0] = %v5
  }
}
)");
}

TEST(LowerGolden, QuantizeBipolar) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<16,6>[2] = Input() @x "x"
%y: ap_int<2>[2] = Quantize(%x) {format=ap_int<2> min_raw=-1 max_raw=1 bipolar=true} @q
input %x "x": [1x2] perm=[0]
output %y "y": [1x2] perm=[0]
)",
                  R"(
program "t"
buffer @x input ap_fixed<16,6> [2]
buffer @y output ap_fixed<2,2> [2]
inputs @x
outputs @y
kernel q "" reads @x writes @y locals {
  for %d0 < 2 {
    %v0 = load @x[%d0] : ap_fixed<16,6>
    %v1 = const 1 : ap_fixed<2,2>
    %v2 = const -1 : ap_fixed<2,2>
    %v3 = const 0 : ap_ufixed<1,1>
    %v4 = lt %v0, %v3 : ap_ufixed<1,1>
    %v5 = select %v4, %v2, %v1 : ap_fixed<2,2>
    store @y[%d0] = %v5
  }
}
)");
}

// A concatenation's inputs are written inside one nest over the axes before
// its axis (a pixel of a channel concatenation), so that a plan can keep it.
TEST(LowerGolden, Concat) {
  expect_lowering(R"(
model "t" {}
%a: ap_fixed<8,3>[2x1] = Input() @a "a"
%b: ap_fixed<8,3>[2x2] = Input() @b "b"
%y: ap_fixed<6,2>[2x3] = Concat(%a, %b) {axis=1} @cat
input %a "a": [1x2x1] perm=[0,1]
input %b "b": [1x2x2] perm=[0,1]
output %y "y": [1x2x3] perm=[0,1]
)",
                  R"(
program "t"
buffer @a input ap_fixed<8,3> [2x1]
buffer @b input ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<6,2> [2x3]
inputs @a @b
outputs @y
kernel cat "" reads @a @b writes @y locals {
  for %d0 < 2 {
    for %in0_0 < 1 {
      %v0 = load @a[%d0, %in0_0] : ap_fixed<8,3>
      %v1 = quantize %v0 to ap_fixed<6,2> : ap_fixed<6,2>
      store @y[%d0, %in0_0] = %v1
    }
    for %in1_0 < 2 {
      %v2 = load @b[%d0, %in1_0] : ap_fixed<8,3>
      %v3 = quantize %v2 to ap_fixed<6,2> : ap_fixed<6,2>
      store @y[%d0, %in1_0 + 1] = %v3
    }
  }
}
)");
}

TEST(LowerGolden, Transpose) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x3] = Input() @x "x"
%y: ap_fixed<8,3>[3x2] = Transpose(%x) {perm=[1,0]} @tr
input %x "x": [1x2x3] perm=[0,1]
output %y "y": [1x3x2] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x3]
buffer @y output ap_fixed<8,3> [3x2]
inputs @x
outputs @y
kernel tr "" reads @x writes @y locals {
  for %d0 < 3 {
    for %d1 < 2 {
      %v0 = load @x[%d1, %d0] : ap_fixed<8,3>
      store @y[%d0, %d1] = %v0
    }
  }
}
)");
}

TEST(LowerGolden, Slice) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[4x2] = Input() @x "x"
%y: ap_fixed<8,3>[2x1] = Slice(%x) {begin=[1,1] step=[2,1]} @sl
input %x "x": [1x4x2] perm=[0,1]
output %y "y": [1x2x1] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [4x2]
buffer @y output ap_fixed<8,3> [2x1]
inputs @x
outputs @y
kernel sl "" reads @x writes @y locals {
  for %d0 < 2 {
    for %d1 < 1 {
      %v0 = load @x[%d0*2 + 1, %d1 + 1] : ap_fixed<8,3>
      store @y[%d0, %d1] = %v0
    }
  }
}
)");
}

// A Reshape and a Clone that keep the type are views (aliases, no kernel).
TEST(LowerGolden, ReshapeAndCloneViews) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2] = Input() @x "x"
%f: ap_fixed<8,3>[4] = Reshape(%x) @flat
%a: ap_fixed<8,3>[4], %b: ap_fixed<8,3>[4] = Clone(%f) @f_clone
%y: ap_fixed<8,3>[4] = Activation(%a) {n=4 channels=4 act={kind=Relu}} @relu
input %x "x": [1x2x2] perm=[0,1]
output %y "y": [1x4] perm=[0]
output %b "b": [1x4] perm=[0]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @f tensor ap_fixed<8,3> [4] alias @x
buffer @a tensor ap_fixed<8,3> [4] alias @f
buffer @b output ap_fixed<8,3> [4] alias @f
buffer @y output ap_fixed<8,3> [4]
inputs @x
outputs @y @b
kernel relu "" reads @a writes @y locals {
  for %d0 < 4 {
    %v0 = load @a[%d0] : ap_fixed<8,3>
    %v1 = const 0 : ap_ufixed<1,1>
    %v2 = max %v0, %v1 : ap_fixed<8,3>
    store @y[%d0] = %v2
  }
}
)");
}

// A Reshape that changes the type copies element by element.
TEST(LowerGolden, ReshapeCopy) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2] = Input() @x "x"
%y: ap_fixed<6,2>[4] = Reshape(%x) @flat
input %x "x": [1x2x2] perm=[0,1]
output %y "y": [1x4] perm=[0]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2]
buffer @y output ap_fixed<6,2> [4]
buffer @x_view tensor ap_fixed<8,3> [4] alias @x
inputs @x
outputs @y
kernel flat "" reads @x_view writes @y locals {
  for %i < 4 {
    %v0 = load @x_view[%i] : ap_fixed<8,3>
    %v1 = quantize %v0 to ap_fixed<6,2> : ap_fixed<6,2>
    store @y[%i] = %v1
  }
}
)");
}

TEST(LowerGolden, ResizeNearest) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x2x1] = Input() @x "x"
%y: ap_fixed<8,3>[4x4x1] = Resize(%x) {in_h=2 in_w=2 channels=1 out_h=4 out_w=4 row_index=[0,0,1,1] col_index=[0,0,1,1]} @up
input %x "x": [1x2x2x1] perm=[0,1,2]
output %y "y": [1x4x4x1] perm=[0,1,2]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x2x1]
buffer @y output ap_fixed<8,3> [4x4x1]
inputs @x
outputs @y
kernel up "" reads @x writes @y locals {
  for %oy0 < 2 {
    for %ox0_0 < 2 {
      for %c0_0 < 1 {
        %v0 = load @x[%oy0, %ox0_0, %c0_0] : ap_fixed<8,3>
        store @y[%oy0*2, %ox0_0*2, %c0_0] = %v0
      }
    }
    for %ox0_1 < 2 {
      for %c0_1 < 1 {
        %v1 = load @x[%oy0, %ox0_1, %c0_1] : ap_fixed<8,3>
        store @y[%oy0*2, %ox0_1*2 + 1, %c0_1] = %v1
      }
    }
  }
  for %oy1 < 2 {
    for %ox1_0 < 2 {
      for %c1_0 < 1 {
        %v2 = load @x[%oy1, %ox1_0, %c1_0] : ap_fixed<8,3>
        store @y[%oy1*2 + 1, %ox1_0*2, %c1_0] = %v2
      }
    }
    for %ox1_1 < 2 {
      for %c1_1 < 1 {
        %v3 = load @x[%oy1, %ox1_1, %c1_1] : ap_fixed<8,3>
        store @y[%oy1*2 + 1, %ox1_1*2 + 1, %c1_1] = %v3
      }
    }
  }
}
)");
}

// Irregular column taps: the columns split into phases of period 3.
TEST(LowerGolden, ResizeLinear) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[1x2x1] = Input() @x "x"
%y: ap_fixed<16,6>[2x4x1] = Resize(%x) {mode=Linear in_h=1 in_w=2 channels=1 out_h=2 out_w=4 row_index=[0,0,0,0] col_index=[0,0,0,1,0,1,1,1]} @up config {accum=ap_fixed<12,4>} constants {weights=[1024,0,1024,0,1024,0,768,256,256,768,1024,0]}
input %x "x": [1x1x2x1] perm=[0,1,2]
output %y "y": [1x2x4x1] perm=[0,1,2]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [1x2x1]
buffer @y output ap_fixed<16,6> [2x4x1]
buffer @up_row_w const ap_fixed<16,6> [2x2] = [1024, 0, 1024, 0]
buffer @up_col_w const ap_fixed<16,6> [4x2] = [1024, 0, 768, 256, 256, 768, 1024, 0]
inputs @x
outputs @y
kernel up "" reads @x @up_row_w @up_col_w writes @y locals {
  for %oy0 < 2 {
    for %ox0_0 < 2 {
      for %c0_0 < 1 {
        %v0 = load @up_row_w[%oy0, 0] : ap_fixed<16,6>
        %v1 = load @x[0, %ox0_0, %c0_0] : ap_fixed<8,3>
        %v2 = mul %v0, %v1 : ap_fixed<24,9>
        %v3 = load @up_row_w[%oy0, 1] : ap_fixed<16,6>
        %v4 = load @x[0, %ox0_0, %c0_0] : ap_fixed<8,3>
        %v5 = mul %v3, %v4 : ap_fixed<24,9>
        %v6 = add %v2, %v5 : ap_fixed<25,10>
        %v7 = quantize %v6 to ap_fixed<12,4> : ap_fixed<12,4>
        %v8 = load @up_col_w[%ox0_0*3, 0] : ap_fixed<16,6>
        %v9 = mul %v8, %v7 : ap_fixed<28,10>
        %v10 = load @up_row_w[%oy0, 0] : ap_fixed<16,6>
        %v11 = load @x[0, %ox0_0, %c0_0] : ap_fixed<8,3>
        %v12 = mul %v10, %v11 : ap_fixed<24,9>
        %v13 = load @up_row_w[%oy0, 1] : ap_fixed<16,6>
        %v14 = load @x[0, %ox0_0, %c0_0] : ap_fixed<8,3>
        %v15 = mul %v13, %v14 : ap_fixed<24,9>
        %v16 = add %v12, %v15 : ap_fixed<25,10>
        %v17 = quantize %v16 to ap_fixed<12,4> : ap_fixed<12,4>
        %v18 = load @up_col_w[%ox0_0*3, 1] : ap_fixed<16,6>
        %v19 = mul %v18, %v17 : ap_fixed<28,10>
        %v20 = add %v9, %v19 : ap_fixed<29,11>
        %v21 = quantize %v20 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%oy0, %ox0_0*3, %c0_0] = %v21
      }
    }
    for %ox0_1 < 1 {
      for %c0_1 < 1 {
        %v22 = load @up_row_w[%oy0, 0] : ap_fixed<16,6>
        %v23 = load @x[0, %ox0_1, %c0_1] : ap_fixed<8,3>
        %v24 = mul %v22, %v23 : ap_fixed<24,9>
        %v25 = load @up_row_w[%oy0, 1] : ap_fixed<16,6>
        %v26 = load @x[0, %ox0_1, %c0_1] : ap_fixed<8,3>
        %v27 = mul %v25, %v26 : ap_fixed<24,9>
        %v28 = add %v24, %v27 : ap_fixed<25,10>
        %v29 = quantize %v28 to ap_fixed<12,4> : ap_fixed<12,4>
        %v30 = load @up_col_w[%ox0_1*3 + 1, 0] : ap_fixed<16,6>
        %v31 = mul %v30, %v29 : ap_fixed<28,10>
        %v32 = load @up_row_w[%oy0, 0] : ap_fixed<16,6>
        %v33 = load @x[0, %ox0_1 + 1, %c0_1] : ap_fixed<8,3>
        %v34 = mul %v32, %v33 : ap_fixed<24,9>
        %v35 = load @up_row_w[%oy0, 1] : ap_fixed<16,6>
        %v36 = load @x[0, %ox0_1 + 1, %c0_1] : ap_fixed<8,3>
        %v37 = mul %v35, %v36 : ap_fixed<24,9>
        %v38 = add %v34, %v37 : ap_fixed<25,10>
        %v39 = quantize %v38 to ap_fixed<12,4> : ap_fixed<12,4>
        %v40 = load @up_col_w[%ox0_1*3 + 1, 1] : ap_fixed<16,6>
        %v41 = mul %v40, %v39 : ap_fixed<28,10>
        %v42 = add %v31, %v41 : ap_fixed<29,11>
        %v43 = quantize %v42 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%oy0, %ox0_1*3 + 1, %c0_1] = %v43
      }
    }
    for %ox0_2 < 1 {
      for %c0_2 < 1 {
        %v44 = load @up_row_w[%oy0, 0] : ap_fixed<16,6>
        %v45 = load @x[0, %ox0_2, %c0_2] : ap_fixed<8,3>
        %v46 = mul %v44, %v45 : ap_fixed<24,9>
        %v47 = load @up_row_w[%oy0, 1] : ap_fixed<16,6>
        %v48 = load @x[0, %ox0_2, %c0_2] : ap_fixed<8,3>
        %v49 = mul %v47, %v48 : ap_fixed<24,9>
        %v50 = add %v46, %v49 : ap_fixed<25,10>
        %v51 = quantize %v50 to ap_fixed<12,4> : ap_fixed<12,4>
        %v52 = load @up_col_w[%ox0_2*3 + 2, 0] : ap_fixed<16,6>
        %v53 = mul %v52, %v51 : ap_fixed<28,10>
        %v54 = load @up_row_w[%oy0, 0] : ap_fixed<16,6>
        %v55 = load @x[0, %ox0_2 + 1, %c0_2] : ap_fixed<8,3>
        %v56 = mul %v54, %v55 : ap_fixed<24,9>
        %v57 = load @up_row_w[%oy0, 1] : ap_fixed<16,6>
        %v58 = load @x[0, %ox0_2 + 1, %c0_2] : ap_fixed<8,3>
        %v59 = mul %v57, %v58 : ap_fixed<24,9>
        %v60 = add %v56, %v59 : ap_fixed<25,10>
        %v61 = quantize %v60 to ap_fixed<12,4> : ap_fixed<12,4>
        %v62 = load @up_col_w[%ox0_2*3 + 2, 1] : ap_fixed<16,6>
        %v63 = mul %v62, %v61 : ap_fixed<28,10>
        %v64 = add %v53, %v63 : ap_fixed<29,11>
        %v65 = quantize %v64 to ap_fixed<16,6> : ap_fixed<16,6>
        store @y[%oy0, %ox0_2*3 + 2, %c0_2] = %v65
      }
    }
  }
}
)");
}

TEST(LowerGolden, GruSequences) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x1] = Input() @x "x"
%h: ap_fixed<16,6>[2x1] = Recurrent(%x) {cell=GRU steps=2 n_in=1 hidden=1 sequences=true} @gru config {tables={table_size=8}} constants {weights=[512,-256,300,100,-700,400] bias=[10,20,30,-40,-50,60]}
input %x "x": [1x2x1] perm=[0,1]
output %h "h": [1x2x1] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x1]
buffer @h output ap_fixed<16,6> [2x1]
buffer @gru_w const ap_fixed<16,6> [1x3] = [512, -256, 300]
buffer @gru_r const ap_fixed<16,6> [1x3] = [100, -700, 400]
buffer @gru_wb const ap_fixed<16,6> [3] = [10, 20, 30]
buffer @gru_rb const ap_fixed<16,6> [3] = [-40, -50, 60]
buffer @gru_sigmoid const ap_fixed<18,8> [8] = [0, 6, 48, 275, 748, 975, 1017, 1023]
buffer @gru_tanh const ap_fixed<18,8> [8] = [-1024, -1024, -1019, -780, 779, 1018, 1023, 1023]
buffer @gru_h local ap_fixed<16,6> [1]
buffer @gru_xw local ap_fixed<32,12> [3]
buffer @gru_hr local ap_fixed<32,12> [3]
inputs @x
outputs @h
kernel gru "" reads @x @gru_w @gru_r @gru_wb @gru_rb @gru_sigmoid @gru_tanh writes @h locals @gru_h @gru_xw @gru_hr {
  for %init < 1 {
    %v0 = const 0 : ap_fixed<16,6>
    store @gru_h[%init] = %v0
  }
  for %t < 2 {
    for %xb < 3 {
      %v1 = load @gru_wb[%xb] : ap_fixed<16,6>
      %v2 = quantize %v1 to ap_fixed<32,12> : ap_fixed<32,12>
      store @gru_xw[%xb] = %v2
    }
    for %xi < 1 {
      %v3 = load @x[%t, %xi] : ap_fixed<8,3>
      for %xj < 3 {
        %v4 = load @gru_xw[%xj] : ap_fixed<32,12>
        %v5 = load @gru_w[%xi, %xj] : ap_fixed<16,6>
        %v6 = mul %v3, %v5 : ap_fixed<24,9>
        %v7 = add %v4, %v6 : ap_fixed<33,13>
        %v8 = quantize %v7 to ap_fixed<32,12> : ap_fixed<32,12>
        store @gru_xw[%xj] = %v8
      }
    }
    for %hb < 3 {
      %v9 = load @gru_rb[%hb] : ap_fixed<16,6>
      %v10 = quantize %v9 to ap_fixed<32,12> : ap_fixed<32,12>
      store @gru_hr[%hb] = %v10
    }
    for %hi < 1 {
      %v11 = load @gru_h[%hi] : ap_fixed<16,6>
      for %hj < 3 {
        %v12 = load @gru_hr[%hj] : ap_fixed<32,12>
        %v13 = load @gru_r[%hi, %hj] : ap_fixed<16,6>
        %v14 = mul %v11, %v13 : ap_fixed<32,12>
        %v15 = add %v12, %v14 : ap_fixed<33,13>
        %v16 = quantize %v15 to ap_fixed<32,12> : ap_fixed<32,12>
        store @gru_hr[%hj] = %v16
      }
    }
    for %j < 1 {
      %v17 = load @gru_xw[%j] : ap_fixed<32,12>
      %v18 = load @gru_hr[%j] : ap_fixed<32,12>
      %v19 = add %v17, %v18 : ap_fixed<33,13>
      %v20 = quantize %v19 to ap_fixed<32,12> : ap_fixed<32,12>
      %v21 = lookup @gru_sigmoid[%v20] shift -1 offset 4 : ap_fixed<18,8>
      %v22 = load @gru_xw[%j + 1] : ap_fixed<32,12>
      %v23 = load @gru_hr[%j + 1] : ap_fixed<32,12>
      %v24 = add %v22, %v23 : ap_fixed<33,13>
      %v25 = quantize %v24 to ap_fixed<32,12> : ap_fixed<32,12>
      %v26 = lookup @gru_sigmoid[%v25] shift -1 offset 4 : ap_fixed<18,8>
      %v27 = load @gru_xw[%j + 2] : ap_fixed<32,12>
      %v28 = load @gru_hr[%j + 2] : ap_fixed<32,12>
      %v29 = mul %v26, %v28 : ap_fixed<50,20>
      %v30 = add %v27, %v29 : ap_fixed<51,21>
      %v31 = quantize %v30 to ap_fixed<32,12> : ap_fixed<32,12>
      %v32 = lookup @gru_tanh[%v31] shift -1 offset 4 : ap_fixed<18,8>
      %v33 = load @gru_h[%j] : ap_fixed<16,6>
      %v34 = sub %v33, %v32 : ap_fixed<19,9>
      %v35 = mul %v21, %v34 : ap_fixed<37,17>
      %v36 = add %v32, %v35 : ap_fixed<38,18>
      %v37 = quantize %v36 to ap_fixed<16,6> : ap_fixed<16,6>
      store @gru_h[%j] = %v37
      store @h[%t, %j] = %v37
    }
  }
}
)");
}

TEST(LowerGolden, LstmLastState) {
  expect_lowering(R"(
model "t" {}
%x: ap_fixed<8,3>[2x1] = Input() @x "x"
%h: ap_fixed<16,6>[1x1] = Recurrent(%x) {cell=LSTM steps=2 n_in=1 hidden=1 sequences=false} @lstm config {tables={table_size=8}} constants {weights=[512,-256,300,100,-700,400,50,-60] bias=[10,20,30,-40,-50,60,70,80]}
input %x "x": [1x2x1] perm=[0,1]
output %h "h": [1x1] perm=[0,1]
)",
                  R"(
program "t"
buffer @x input ap_fixed<8,3> [2x1]
buffer @h output ap_fixed<16,6> [1x1]
buffer @lstm_w const ap_fixed<16,6> [1x4] = [512, -256, 300, 100]
buffer @lstm_r const ap_fixed<16,6> [1x4] = [-700, 400, 50, -60]
buffer @lstm_wb const ap_fixed<16,6> [4] = [10, 20, 30, -40]
buffer @lstm_rb const ap_fixed<16,6> [4] = [-50, 60, 70, 80]
buffer @lstm_sigmoid const ap_fixed<18,8> [8] = [0, 6, 48, 275, 748, 975, 1017, 1023]
buffer @lstm_tanh const ap_fixed<18,8> [8] = [-1024, -1024, -1019, -780, 779, 1018, 1023, 1023]
buffer @lstm_h local ap_fixed<16,6> [1]
buffer @lstm_c local ap_fixed<32,12> [1]
buffer @lstm_xw local ap_fixed<32,12> [4]
buffer @lstm_hr local ap_fixed<32,12> [4]
inputs @x
outputs @h
kernel lstm "" reads @x @lstm_w @lstm_r @lstm_wb @lstm_rb @lstm_sigmoid @lstm_tanh writes @h locals @lstm_h @lstm_c @lstm_xw @lstm_hr {
  for %init < 1 {
    %v0 = const 0 : ap_fixed<16,6>
    store @lstm_h[%init] = %v0
    %v1 = const 0 : ap_fixed<32,12>
    store @lstm_c[%init] = %v1
  }
  for %t < 2 {
    for %xb < 4 {
      %v2 = load @lstm_wb[%xb] : ap_fixed<16,6>
      %v3 = quantize %v2 to ap_fixed<32,12> : ap_fixed<32,12>
      store @lstm_xw[%xb] = %v3
    }
    for %xi < 1 {
      %v4 = load @x[%t, %xi] : ap_fixed<8,3>
      for %xj < 4 {
        %v5 = load @lstm_xw[%xj] : ap_fixed<32,12>
        %v6 = load @lstm_w[%xi, %xj] : ap_fixed<16,6>
        %v7 = mul %v4, %v6 : ap_fixed<24,9>
        %v8 = add %v5, %v7 : ap_fixed<33,13>
        %v9 = quantize %v8 to ap_fixed<32,12> : ap_fixed<32,12>
        store @lstm_xw[%xj] = %v9
      }
    }
    for %hb < 4 {
      %v10 = load @lstm_rb[%hb] : ap_fixed<16,6>
      %v11 = quantize %v10 to ap_fixed<32,12> : ap_fixed<32,12>
      store @lstm_hr[%hb] = %v11
    }
    for %hi < 1 {
      %v12 = load @lstm_h[%hi] : ap_fixed<16,6>
      for %hj < 4 {
        %v13 = load @lstm_hr[%hj] : ap_fixed<32,12>
        %v14 = load @lstm_r[%hi, %hj] : ap_fixed<16,6>
        %v15 = mul %v12, %v14 : ap_fixed<32,12>
        %v16 = add %v13, %v15 : ap_fixed<33,13>
        %v17 = quantize %v16 to ap_fixed<32,12> : ap_fixed<32,12>
        store @lstm_hr[%hj] = %v17
      }
    }
    for %j < 1 {
      %v18 = load @lstm_xw[%j] : ap_fixed<32,12>
      %v19 = load @lstm_hr[%j] : ap_fixed<32,12>
      %v20 = add %v18, %v19 : ap_fixed<33,13>
      %v21 = quantize %v20 to ap_fixed<32,12> : ap_fixed<32,12>
      %v22 = lookup @lstm_sigmoid[%v21] shift -1 offset 4 : ap_fixed<18,8>
      %v23 = load @lstm_xw[%j + 1] : ap_fixed<32,12>
      %v24 = load @lstm_hr[%j + 1] : ap_fixed<32,12>
      %v25 = add %v23, %v24 : ap_fixed<33,13>
      %v26 = quantize %v25 to ap_fixed<32,12> : ap_fixed<32,12>
      %v27 = lookup @lstm_sigmoid[%v26] shift -1 offset 4 : ap_fixed<18,8>
      %v28 = load @lstm_xw[%j + 2] : ap_fixed<32,12>
      %v29 = load @lstm_hr[%j + 2] : ap_fixed<32,12>
      %v30 = add %v28, %v29 : ap_fixed<33,13>
      %v31 = quantize %v30 to ap_fixed<32,12> : ap_fixed<32,12>
      %v32 = lookup @lstm_sigmoid[%v31] shift -1 offset 4 : ap_fixed<18,8>
      %v33 = load @lstm_xw[%j + 3] : ap_fixed<32,12>
      %v34 = load @lstm_hr[%j + 3] : ap_fixed<32,12>
      %v35 = add %v33, %v34 : ap_fixed<33,13>
      %v36 = quantize %v35 to ap_fixed<32,12> : ap_fixed<32,12>
      %v37 = lookup @lstm_tanh[%v36] shift -1 offset 4 : ap_fixed<18,8>
      %v38 = load @lstm_c[%j] : ap_fixed<32,12>
      %v39 = mul %v32, %v38 : ap_fixed<50,20>
      %v40 = mul %v22, %v37 : ap_fixed<36,16>
      %v41 = add %v39, %v40 : ap_fixed<51,21>
      %v42 = quantize %v41 to ap_fixed<32,12> : ap_fixed<32,12>
      store @lstm_c[%j] = %v42
      %v43 = lookup @lstm_tanh[%v42] shift -1 offset 4 : ap_fixed<18,8>
      %v44 = mul %v27, %v43 : ap_fixed<36,16>
      %v45 = quantize %v44 to ap_fixed<16,6> : ap_fixed<16,6>
      store @lstm_h[%j] = %v45
    }
  }
  for %out < 1 {
    %v46 = load @lstm_h[%out] : ap_fixed<16,6>
    store @h[0, %out] = %v46
  }
}
)");
}

}  // namespace
}  // namespace kiln::loop

namespace kiln::loop {
namespace {

// A result of the accumulator's width and fraction that saturates
// symmetrically is still quantized: AP_SAT_SYM turns the most negative
// accumulator value into -max (and counts it), as the emulator does.
TEST(LowerGolden, SameFormatSymmetricSaturationIsQuantized) {
  const hls::Model m = hls::testing::parse(R"(
model "t" {}
%x: ap_fixed<16,6>[1] = Input() @x "x"
%y: ap_fixed<16,6,AP_TRN,AP_SAT_SYM>[1] = Dense(%x) {n_in=1 n_out=1} @fc config {accum=ap_fixed<16,6>} constants {weights=[1024] bias=[0]}
input %x "x": [1x1] perm=[0]
output %y "y": [1x1] perm=[0]
)");
  const Program p = lower_model(m);
  EXPECT_CONTAINS(print_program(p), "to ap_fixed<16,6,AP_TRN,AP_SAT_SYM>");
  const InterpretResult r = interpret(p, {{-32768}});
  const hls::EmulationResult e = hls::emulate(m, {{-32.0}});
  EXPECT_EQ(e.outputs.at(0).raw, std::vector<int64_t>{-32767});
  EXPECT_EQ(r.outputs.at(0).raw, e.outputs.at(0).raw);
  EXPECT_EQ(r.per_kernel.at(0).saturated, 1);
  EXPECT_EQ(e.per_layer.at(1).saturated, 1);
}

}  // namespace
}  // namespace kiln::loop
