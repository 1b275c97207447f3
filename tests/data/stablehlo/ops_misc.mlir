module @jit_ops_misc attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<i32>) -> (tensor<4x5xf32> {jax.result_info = "result[0]"}, tensor<4xi32> {jax.result_info = "result[1]"}, tensor<4x10xf32> {jax.result_info = "result[2]"}, tensor<5x7xf32> {jax.result_info = "result[3]"}, tensor<2x2xf32> {jax.result_info = "result[4]"}, tensor<4x5xf32> {jax.result_info = "result[5]"}, tensor<3x5xf32> {jax.result_info = "result[6]"}, tensor<5xf32> {jax.result_info = "result[7]"}, tensor<4x5xf32> {jax.result_info = "result[8]"}, tensor<4x5xf32> {jax.result_info = "result[9]"}, tensor<4x5xf32> {jax.result_info = "result[10]"}) {
    %c = stablehlo.constant dense<[2, 0, 1]> : tensor<3xi32>
    %c_0 = stablehlo.constant dense<[0, 3, 3]> : tensor<3xi32>
    %0 = call @sort(%arg0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %1 = call @argmax(%arg0) : (tensor<4x5xf32>) -> tensor<4xi32>
    %2 = stablehlo.reverse %arg0, dims = [1] : tensor<4x5xf32>
    %3 = stablehlo.concatenate %arg0, %2, dim = 1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x10xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %4 = call @_pad(%arg0, %cst) : (tensor<4x5xf32>, tensor<f32>) -> tensor<5x7xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %arg1, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<4> : tensor<i32>
    %6 = stablehlo.add %arg1, %c_2 : tensor<i32>
    %7 = stablehlo.select %5, %6, %arg1 : tensor<i1>, tensor<i32>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.dynamic_slice %arg0, %7, %c_3, sizes = [2, 2] : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<1x2xf32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.compare LT, %arg1, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_6 = stablehlo.constant dense<4> : tensor<i32>
    %11 = stablehlo.add %arg1, %c_6 : tensor<i32>
    %12 = stablehlo.select %10, %11, %arg1 : tensor<i1>, tensor<i32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.compare LT, %arg1, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_8 = stablehlo.constant dense<5> : tensor<i32>
    %14 = stablehlo.add %arg1, %c_8 : tensor<i32>
    %15 = stablehlo.select %13, %14, %arg1 : tensor<i1>, tensor<i32>
    %16 = stablehlo.dynamic_update_slice %arg0, %9, %12, %15 : (tensor<4x5xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %17 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %18 = stablehlo.compare LT, %c, %17, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_10 = stablehlo.constant dense<4> : tensor<i32>
    %19 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %20 = stablehlo.add %c, %19 : tensor<3xi32>
    %21 = stablehlo.select %18, %20, %c : tensor<3xi1>, tensor<3xi32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %23 = "stablehlo.gather"(%arg0, %22) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 5>}> : (tensor<4x5xf32>, tensor<3x1xi32>) -> tensor<3x5xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %25 = stablehlo.slice %arg0 [0:1, 0:3] : (tensor<4x5xf32>) -> tensor<1x3xf32>
    %26 = stablehlo.reshape %25 : (tensor<1x3xf32>) -> tensor<3xf32>
    %c_12 = stablehlo.constant dense<0> : tensor<i32>
    %27 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %28 = stablehlo.compare LT, %c_0, %27, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_13 = stablehlo.constant dense<5> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %30 = stablehlo.add %c_0, %29 : tensor<3xi32>
    %31 = stablehlo.select %28, %30, %c_0 : tensor<3xi1>, tensor<3xi32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %33 = "stablehlo.scatter"(%24, %32, %26) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %39 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %39 : tensor<f32>
    }) : (tensor<5xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<5xf32>
    %cst_14 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %cst_15 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %34 = call @clip(%arg0, %cst_14, %cst_15) : (tensor<4x5xf32>, tensor<f32>, tensor<f32>) -> tensor<4x5xf32>
    %c_16 = stablehlo.constant dense<0> : tensor<i32>
    %35 = stablehlo.compare GT, %arg1, %c_16, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %36 = stablehlo.convert %35 : (tensor<i1>) -> tensor<i32>
    %37 = "stablehlo.case"(%36) ({
      %cst_17 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %39 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
      %40 = stablehlo.subtract %arg0, %39 : tensor<4x5xf32>
      stablehlo.return %40 : tensor<4x5xf32>
    }, {
      %cst_17 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %39 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
      %40 = stablehlo.multiply %arg0, %39 : tensor<4x5xf32>
      stablehlo.return %40 : tensor<4x5xf32>
    }) : (tensor<i32>) -> tensor<4x5xf32>
    %38 = call @cumsum(%arg0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    return %0, %1, %3, %4, %8, %16, %23, %33, %34, %37, %38 : tensor<4x5xf32>, tensor<4xi32>, tensor<4x10xf32>, tensor<5x7xf32>, tensor<2x2xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>
  }
  func.func private @sort(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
  func.func private @argmax(%arg0: tensor<4x5xf32>) -> tensor<4xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<4x5xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<4x5xf32>, tensor<4x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<4xi32>
  }
  func.func private @_pad(%arg0: tensor<4x5xf32>, %arg1: tensor<f32>) -> tensor<5x7xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 0], high = [0, 2], interior = [0, 0] : (tensor<4x5xf32>, tensor<f32>) -> tensor<5x7xf32>
    return %1 : tensor<5x7xf32>
  }
  func.func private @clip(%arg0: tensor<4x5xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4x5xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<4x5xf32>
    %3 = stablehlo.convert %arg2 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<4x5xf32>
    return %5 : tensor<4x5xf32>
  }
  func.func private @cumsum(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[3, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 4, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
    return %1 : tensor<4x5xf32>
  }
}
