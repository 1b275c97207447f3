module @jit_cnn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x2x4xf32>, %arg1: tensor<2x6x6x2xf32>) -> (tensor<2x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg1, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x2xf32>, tensor<3x3x2x4xf32>) -> tensor<2x6x6x4xf32>
    %1 = call @relu(%0) : (tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %3 = "stablehlo.reduce_window"(%1, %2) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %7 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %7 : tensor<f32>
    }) : (tensor<2x6x6x4xf32>, tensor<f32>) -> tensor<2x3x3x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1, 2] : (tensor<2x3x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    %cst_1 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %6 = stablehlo.divide %4, %5 : tensor<2x4xf32>
    return %6 : tensor<2x4xf32>
  }
  func.func private @relu(%arg0: tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x6x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x6x6x4xf32>
    return %1 : tensor<2x6x6x4xf32>
  }
}
