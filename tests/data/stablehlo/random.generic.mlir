"builtin.module"() <{sym_name = "jit_rand"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2xui32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>), res_attrs = [{jax.result_info = "result[0]"}, {jax.result_info = "result[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg69: tensor<2xui32>, %arg70: tensor<4x3xf32>):
    %249 = "func.call"(%arg69) <{callee = @_threefry_split}> : (tensor<2xui32>) -> tensor<2x2xui32>
    %250 = "stablehlo.slice"(%249) <{limit_indices = array<i64: 1, 2>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<2x2xui32>) -> tensor<1x2xui32>
    %251 = "stablehlo.reshape"(%250) : (tensor<1x2xui32>) -> tensor<2xui32>
    %252 = "stablehlo.slice"(%249) <{limit_indices = array<i64: 2, 2>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 1>}> : (tensor<2x2xui32>) -> tensor<1x2xui32>
    %253 = "stablehlo.reshape"(%252) : (tensor<1x2xui32>) -> tensor<2xui32>
    %254 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %255 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %256 = "func.call"(%251, %254, %255) <{callee = @_uniform}> : (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<4x3xf32>
    %257 = "func.call"(%253) <{callee = @_normal}> : (tensor<2xui32>) -> tensor<4x3xf32>
    %258 = "stablehlo.add"(%256, %arg70) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %259 = "stablehlo.multiply"(%257, %arg70) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    "func.return"(%258, %259) : (tensor<4x3xf32>, tensor<4x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<2xui32>) -> tensor<2x2xui32>, res_attrs = [{}], sym_name = "_threefry_split", sym_visibility = "private"}> ({
  ^bb0(%arg68: tensor<2xui32>):
    %232 = "stablehlo.slice"(%arg68) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<2xui32>) -> tensor<1xui32>
    %233 = "stablehlo.reshape"(%232) : (tensor<1xui32>) -> tensor<ui32>
    %234 = "stablehlo.slice"(%arg68) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<2xui32>) -> tensor<1xui32>
    %235 = "stablehlo.reshape"(%234) : (tensor<1xui32>) -> tensor<ui32>
    %236 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<2xui64>
    %237 = "stablehlo.constant"() <{value = dense<1> : tensor<ui64>}> : () -> tensor<ui64>
    %238 = "stablehlo.broadcast_in_dim"(%237) <{broadcast_dimensions = array<i64>}> : (tensor<ui64>) -> tensor<2xui64>
    %239 = "stablehlo.multiply"(%238, %236) : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
    %240 = "stablehlo.constant"() <{value = dense<32> : tensor<ui64>}> : () -> tensor<ui64>
    %241 = "stablehlo.broadcast_in_dim"(%240) <{broadcast_dimensions = array<i64>}> : (tensor<ui64>) -> tensor<2xui64>
    %242 = "stablehlo.shift_right_logical"(%239, %241) : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
    %243 = "stablehlo.convert"(%239) : (tensor<2xui64>) -> tensor<2xui32>
    %244 = "stablehlo.convert"(%242) : (tensor<2xui64>) -> tensor<2xui32>
    %245:2 = "func.call"(%233, %235, %244, %243) <{callee = @threefry2x32}> : (tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>)
    %246 = "stablehlo.broadcast_in_dim"(%245#0) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xui32>) -> tensor<2x1xui32>
    %247 = "stablehlo.broadcast_in_dim"(%245#1) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xui32>) -> tensor<2x1xui32>
    %248 = "stablehlo.concatenate"(%246, %247) <{dimension = 1 : i64}> : (tensor<2x1xui32>, tensor<2x1xui32>) -> tensor<2x2xui32>
    "func.return"(%248) : (tensor<2x2xui32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>), sym_name = "threefry2x32", sym_visibility = "private"}> ({
  ^bb0(%arg46: tensor<ui32>, %arg47: tensor<ui32>, %arg48: tensor<2xui32>, %arg49: tensor<2xui32>):
    %215 = "stablehlo.constant"() <{value = dense<[13, 15, 26, 6]> : tensor<4xui32>}> : () -> tensor<4xui32>
    %216 = "stablehlo.constant"() <{value = dense<[17, 29, 16, 24]> : tensor<4xui32>}> : () -> tensor<4xui32>
    %217 = "stablehlo.xor"(%arg46, %arg47) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %218 = "stablehlo.constant"() <{value = dense<466688986> : tensor<ui32>}> : () -> tensor<ui32>
    %219 = "stablehlo.xor"(%217, %218) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %220 = "stablehlo.broadcast_in_dim"(%arg46) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %221 = "stablehlo.add"(%arg48, %220) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %222 = "stablehlo.broadcast_in_dim"(%arg47) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %223 = "stablehlo.add"(%arg49, %222) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %224 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %225 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %226:9 = "stablehlo.while"(%225, %224, %221, %223, %arg47, %219, %arg46, %215, %216) ({
    ^bb0(%arg59: tensor<i32>, %arg60: tensor<i32>, %arg61: tensor<2xui32>, %arg62: tensor<2xui32>, %arg63: tensor<ui32>, %arg64: tensor<ui32>, %arg65: tensor<ui32>, %arg66: tensor<4xui32>, %arg67: tensor<4xui32>):
      %230 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
      %231 = "stablehlo.compare"(%arg59, %230) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%231) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg50: tensor<i32>, %arg51: tensor<i32>, %arg52: tensor<2xui32>, %arg53: tensor<2xui32>, %arg54: tensor<ui32>, %arg55: tensor<ui32>, %arg56: tensor<ui32>, %arg57: tensor<4xui32>, %arg58: tensor<4xui32>):
      %227:8 = "func.call"(%arg51, %arg52, %arg53, %arg54, %arg55, %arg56, %arg57, %arg58) <{callee = @closed_call}> : (tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %228 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %229 = "stablehlo.add"(%arg50, %228) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%229, %227#0, %227#1, %227#2, %227#3, %227#4, %227#5, %227#6, %227#7) : (tensor<i32>, tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> ()
    }) : (tensor<i32>, tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
    "func.return"(%226#2, %226#3) : (tensor<2xui32>, tensor<2xui32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>), res_attrs = [{}, {}, {}, {}, {}, {}, {}, {}], sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg38: tensor<i32>, %arg39: tensor<2xui32>, %arg40: tensor<2xui32>, %arg41: tensor<ui32>, %arg42: tensor<ui32>, %arg43: tensor<ui32>, %arg44: tensor<4xui32>, %arg45: tensor<4xui32>):
    %160 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %161 = "stablehlo.add"(%arg38, %160) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %162 = "stablehlo.slice"(%arg44) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xui32>) -> tensor<1xui32>
    %163 = "stablehlo.reshape"(%162) : (tensor<1xui32>) -> tensor<ui32>
    %164 = "stablehlo.add"(%arg39, %arg40) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %165 = "stablehlo.broadcast_in_dim"(%163) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %166 = "stablehlo.shift_left"(%arg40, %165) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %167 = "stablehlo.constant"() <{value = dense<32> : tensor<ui32>}> : () -> tensor<ui32>
    %168 = "stablehlo.subtract"(%167, %163) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %169 = "stablehlo.broadcast_in_dim"(%168) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %170 = "stablehlo.shift_right_logical"(%arg40, %169) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %171 = "stablehlo.or"(%166, %170) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %172 = "stablehlo.xor"(%164, %171) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %173 = "stablehlo.slice"(%arg44) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<4xui32>) -> tensor<1xui32>
    %174 = "stablehlo.reshape"(%173) : (tensor<1xui32>) -> tensor<ui32>
    %175 = "stablehlo.add"(%164, %172) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %176 = "stablehlo.broadcast_in_dim"(%174) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %177 = "stablehlo.shift_left"(%172, %176) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %178 = "stablehlo.constant"() <{value = dense<32> : tensor<ui32>}> : () -> tensor<ui32>
    %179 = "stablehlo.subtract"(%178, %174) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %180 = "stablehlo.broadcast_in_dim"(%179) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %181 = "stablehlo.shift_right_logical"(%172, %180) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %182 = "stablehlo.or"(%177, %181) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %183 = "stablehlo.xor"(%175, %182) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %184 = "stablehlo.slice"(%arg44) <{limit_indices = array<i64: 3>, start_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<4xui32>) -> tensor<1xui32>
    %185 = "stablehlo.reshape"(%184) : (tensor<1xui32>) -> tensor<ui32>
    %186 = "stablehlo.add"(%175, %183) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %187 = "stablehlo.broadcast_in_dim"(%185) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %188 = "stablehlo.shift_left"(%183, %187) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %189 = "stablehlo.constant"() <{value = dense<32> : tensor<ui32>}> : () -> tensor<ui32>
    %190 = "stablehlo.subtract"(%189, %185) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %191 = "stablehlo.broadcast_in_dim"(%190) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %192 = "stablehlo.shift_right_logical"(%183, %191) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %193 = "stablehlo.or"(%188, %192) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %194 = "stablehlo.xor"(%186, %193) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %195 = "stablehlo.slice"(%arg44) <{limit_indices = array<i64: 4>, start_indices = array<i64: 3>, strides = array<i64: 1>}> : (tensor<4xui32>) -> tensor<1xui32>
    %196 = "stablehlo.reshape"(%195) : (tensor<1xui32>) -> tensor<ui32>
    %197 = "stablehlo.add"(%186, %194) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %198 = "stablehlo.broadcast_in_dim"(%196) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %199 = "stablehlo.shift_left"(%194, %198) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %200 = "stablehlo.constant"() <{value = dense<32> : tensor<ui32>}> : () -> tensor<ui32>
    %201 = "stablehlo.subtract"(%200, %196) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %202 = "stablehlo.broadcast_in_dim"(%201) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %203 = "stablehlo.shift_right_logical"(%194, %202) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %204 = "stablehlo.or"(%199, %203) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %205 = "stablehlo.xor"(%197, %204) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %206 = "stablehlo.broadcast_in_dim"(%arg41) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %207 = "stablehlo.add"(%197, %206) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %208 = "stablehlo.broadcast_in_dim"(%arg42) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %209 = "stablehlo.add"(%205, %208) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %210 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %211 = "stablehlo.add"(%arg38, %210) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %212 = "stablehlo.convert"(%211) : (tensor<i32>) -> tensor<ui32>
    %213 = "stablehlo.broadcast_in_dim"(%212) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<2xui32>
    %214 = "stablehlo.add"(%209, %213) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    "func.return"(%161, %207, %214, %arg42, %arg43, %arg41, %arg45, %arg44) : (tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<4x3xf32>, res_attrs = [{}], sym_name = "_uniform", sym_visibility = "private"}> ({
  ^bb0(%arg35: tensor<2xui32>, %arg36: tensor<f32>, %arg37: tensor<f32>):
    %119 = "stablehlo.convert"(%arg36) : (tensor<f32>) -> tensor<f32>
    %120 = "stablehlo.convert"(%arg37) : (tensor<f32>) -> tensor<f32>
    %121 = "stablehlo.broadcast_in_dim"(%119) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<1x1xf32>
    %122 = "stablehlo.broadcast_in_dim"(%120) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<1x1xf32>
    %123 = "stablehlo.slice"(%arg35) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<2xui32>) -> tensor<1xui32>
    %124 = "stablehlo.reshape"(%123) : (tensor<1xui32>) -> tensor<ui32>
    %125 = "stablehlo.slice"(%arg35) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<2xui32>) -> tensor<1xui32>
    %126 = "stablehlo.reshape"(%125) : (tensor<1xui32>) -> tensor<ui32>
    %127 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x3xui64>
    %128 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x3xui64>
    %129 = "stablehlo.constant"() <{value = dense<3> : tensor<ui64>}> : () -> tensor<ui64>
    %130 = "stablehlo.broadcast_in_dim"(%129) <{broadcast_dimensions = array<i64>}> : (tensor<ui64>) -> tensor<4x3xui64>
    %131 = "stablehlo.multiply"(%130, %127) : (tensor<4x3xui64>, tensor<4x3xui64>) -> tensor<4x3xui64>
    %132 = "stablehlo.constant"() <{value = dense<1> : tensor<ui64>}> : () -> tensor<ui64>
    %133 = "stablehlo.broadcast_in_dim"(%132) <{broadcast_dimensions = array<i64>}> : (tensor<ui64>) -> tensor<4x3xui64>
    %134 = "stablehlo.multiply"(%133, %128) : (tensor<4x3xui64>, tensor<4x3xui64>) -> tensor<4x3xui64>
    %135 = "stablehlo.add"(%131, %134) : (tensor<4x3xui64>, tensor<4x3xui64>) -> tensor<4x3xui64>
    %136 = "stablehlo.constant"() <{value = dense<32> : tensor<ui64>}> : () -> tensor<ui64>
    %137 = "stablehlo.broadcast_in_dim"(%136) <{broadcast_dimensions = array<i64>}> : (tensor<ui64>) -> tensor<4x3xui64>
    %138 = "stablehlo.shift_right_logical"(%135, %137) : (tensor<4x3xui64>, tensor<4x3xui64>) -> tensor<4x3xui64>
    %139 = "stablehlo.convert"(%135) : (tensor<4x3xui64>) -> tensor<4x3xui32>
    %140 = "stablehlo.convert"(%138) : (tensor<4x3xui64>) -> tensor<4x3xui32>
    %141:2 = "func.call"(%124, %126, %140, %139) <{callee = @threefry2x32_0}> : (tensor<ui32>, tensor<ui32>, tensor<4x3xui32>, tensor<4x3xui32>) -> (tensor<4x3xui32>, tensor<4x3xui32>)
    %142 = "stablehlo.xor"(%141#0, %141#1) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %143 = "stablehlo.constant"() <{value = dense<9> : tensor<ui32>}> : () -> tensor<ui32>
    %144 = "stablehlo.broadcast_in_dim"(%143) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %145 = "stablehlo.shift_right_logical"(%142, %144) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %146 = "stablehlo.constant"() <{value = dense<1065353216> : tensor<ui32>}> : () -> tensor<ui32>
    %147 = "stablehlo.broadcast_in_dim"(%146) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %148 = "stablehlo.or"(%145, %147) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %149 = "stablehlo.bitcast_convert"(%148) : (tensor<4x3xui32>) -> tensor<4x3xf32>
    %150 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %151 = "stablehlo.broadcast_in_dim"(%150) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %152 = "stablehlo.subtract"(%149, %151) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %153 = "stablehlo.subtract"(%122, %121) : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
    %154 = "stablehlo.broadcast_in_dim"(%153) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %155 = "stablehlo.multiply"(%152, %154) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %156 = "stablehlo.broadcast_in_dim"(%121) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %157 = "stablehlo.add"(%155, %156) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %158 = "stablehlo.broadcast_in_dim"(%121) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %159 = "stablehlo.maximum"(%158, %157) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    "func.return"(%159) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<ui32>, tensor<ui32>, tensor<4x3xui32>, tensor<4x3xui32>) -> (tensor<4x3xui32>, tensor<4x3xui32>), sym_name = "threefry2x32_0", sym_visibility = "private"}> ({
  ^bb0(%arg13: tensor<ui32>, %arg14: tensor<ui32>, %arg15: tensor<4x3xui32>, %arg16: tensor<4x3xui32>):
    %102 = "stablehlo.constant"() <{value = dense<[13, 15, 26, 6]> : tensor<4xui32>}> : () -> tensor<4xui32>
    %103 = "stablehlo.constant"() <{value = dense<[17, 29, 16, 24]> : tensor<4xui32>}> : () -> tensor<4xui32>
    %104 = "stablehlo.xor"(%arg13, %arg14) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %105 = "stablehlo.constant"() <{value = dense<466688986> : tensor<ui32>}> : () -> tensor<ui32>
    %106 = "stablehlo.xor"(%104, %105) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %107 = "stablehlo.broadcast_in_dim"(%arg13) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %108 = "stablehlo.add"(%arg15, %107) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %109 = "stablehlo.broadcast_in_dim"(%arg14) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %110 = "stablehlo.add"(%arg16, %109) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %111 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %112 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %113:9 = "stablehlo.while"(%112, %111, %108, %110, %arg14, %106, %arg13, %102, %103) ({
    ^bb0(%arg26: tensor<i32>, %arg27: tensor<i32>, %arg28: tensor<4x3xui32>, %arg29: tensor<4x3xui32>, %arg30: tensor<ui32>, %arg31: tensor<ui32>, %arg32: tensor<ui32>, %arg33: tensor<4xui32>, %arg34: tensor<4xui32>):
      %117 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
      %118 = "stablehlo.compare"(%arg26, %117) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%118) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg17: tensor<i32>, %arg18: tensor<i32>, %arg19: tensor<4x3xui32>, %arg20: tensor<4x3xui32>, %arg21: tensor<ui32>, %arg22: tensor<ui32>, %arg23: tensor<ui32>, %arg24: tensor<4xui32>, %arg25: tensor<4xui32>):
      %114:8 = "func.call"(%arg18, %arg19, %arg20, %arg21, %arg22, %arg23, %arg24, %arg25) <{callee = @closed_call_1}> : (tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %115 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %116 = "stablehlo.add"(%arg17, %115) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%116, %114#0, %114#1, %114#2, %114#3, %114#4, %114#5, %114#6, %114#7) : (tensor<i32>, tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> ()
    }) : (tensor<i32>, tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
    "func.return"(%113#2, %113#3) : (tensor<4x3xui32>, tensor<4x3xui32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>), res_attrs = [{}, {}, {}, {}, {}, {}, {}, {}], sym_name = "closed_call_1", sym_visibility = "private"}> ({
  ^bb0(%arg5: tensor<i32>, %arg6: tensor<4x3xui32>, %arg7: tensor<4x3xui32>, %arg8: tensor<ui32>, %arg9: tensor<ui32>, %arg10: tensor<ui32>, %arg11: tensor<4xui32>, %arg12: tensor<4xui32>):
    %47 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %48 = "stablehlo.add"(%arg5, %47) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %49 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xui32>) -> tensor<1xui32>
    %50 = "stablehlo.reshape"(%49) : (tensor<1xui32>) -> tensor<ui32>
    %51 = "stablehlo.add"(%arg6, %arg7) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %52 = "stablehlo.broadcast_in_dim"(%50) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %53 = "stablehlo.shift_left"(%arg7, %52) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %54 = "stablehlo.constant"() <{value = dense<32> : tensor<ui32>}> : () -> tensor<ui32>
    %55 = "stablehlo.subtract"(%54, %50) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %56 = "stablehlo.broadcast_in_dim"(%55) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %57 = "stablehlo.shift_right_logical"(%arg7, %56) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %58 = "stablehlo.or"(%53, %57) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %59 = "stablehlo.xor"(%51, %58) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %60 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<4xui32>) -> tensor<1xui32>
    %61 = "stablehlo.reshape"(%60) : (tensor<1xui32>) -> tensor<ui32>
    %62 = "stablehlo.add"(%51, %59) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %63 = "stablehlo.broadcast_in_dim"(%61) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %64 = "stablehlo.shift_left"(%59, %63) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %65 = "stablehlo.constant"() <{value = dense<32> : tensor<ui32>}> : () -> tensor<ui32>
    %66 = "stablehlo.subtract"(%65, %61) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %67 = "stablehlo.broadcast_in_dim"(%66) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %68 = "stablehlo.shift_right_logical"(%59, %67) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %69 = "stablehlo.or"(%64, %68) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %70 = "stablehlo.xor"(%62, %69) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %71 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 3>, start_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<4xui32>) -> tensor<1xui32>
    %72 = "stablehlo.reshape"(%71) : (tensor<1xui32>) -> tensor<ui32>
    %73 = "stablehlo.add"(%62, %70) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %74 = "stablehlo.broadcast_in_dim"(%72) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %75 = "stablehlo.shift_left"(%70, %74) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %76 = "stablehlo.constant"() <{value = dense<32> : tensor<ui32>}> : () -> tensor<ui32>
    %77 = "stablehlo.subtract"(%76, %72) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %78 = "stablehlo.broadcast_in_dim"(%77) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %79 = "stablehlo.shift_right_logical"(%70, %78) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %80 = "stablehlo.or"(%75, %79) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %81 = "stablehlo.xor"(%73, %80) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %82 = "stablehlo.slice"(%arg11) <{limit_indices = array<i64: 4>, start_indices = array<i64: 3>, strides = array<i64: 1>}> : (tensor<4xui32>) -> tensor<1xui32>
    %83 = "stablehlo.reshape"(%82) : (tensor<1xui32>) -> tensor<ui32>
    %84 = "stablehlo.add"(%73, %81) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %85 = "stablehlo.broadcast_in_dim"(%83) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %86 = "stablehlo.shift_left"(%81, %85) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %87 = "stablehlo.constant"() <{value = dense<32> : tensor<ui32>}> : () -> tensor<ui32>
    %88 = "stablehlo.subtract"(%87, %83) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %89 = "stablehlo.broadcast_in_dim"(%88) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %90 = "stablehlo.shift_right_logical"(%81, %89) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %91 = "stablehlo.or"(%86, %90) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %92 = "stablehlo.xor"(%84, %91) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %93 = "stablehlo.broadcast_in_dim"(%arg8) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %94 = "stablehlo.add"(%84, %93) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %95 = "stablehlo.broadcast_in_dim"(%arg9) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %96 = "stablehlo.add"(%92, %95) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %97 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %98 = "stablehlo.add"(%arg5, %97) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %99 = "stablehlo.convert"(%98) : (tensor<i32>) -> tensor<ui32>
    %100 = "stablehlo.broadcast_in_dim"(%99) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %101 = "stablehlo.add"(%96, %100) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    "func.return"(%48, %94, %101, %arg9, %arg10, %arg8, %arg12, %arg11) : (tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<2xui32>) -> tensor<4x3xf32>, res_attrs = [{}], sym_name = "_normal", sym_visibility = "private"}> ({
  ^bb0(%arg4: tensor<2xui32>):
    %46 = "func.call"(%arg4) <{callee = @_normal_real}> : (tensor<2xui32>) -> tensor<4x3xf32>
    "func.return"(%46) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<2xui32>) -> tensor<4x3xf32>, res_attrs = [{}], sym_name = "_normal_real", sym_visibility = "private"}> ({
  ^bb0(%arg3: tensor<2xui32>):
    %39 = "stablehlo.constant"() <{value = dense<-0.99999994> : tensor<f32>}> : () -> tensor<f32>
    %40 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %41 = "func.call"(%arg3, %39, %40) <{callee = @_uniform_2}> : (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<4x3xf32>
    %42 = "chlo.erf_inv"(%41) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %43 = "stablehlo.constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
    %44 = "stablehlo.broadcast_in_dim"(%43) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %45 = "stablehlo.multiply"(%44, %42) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    "func.return"(%45) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<4x3xf32>, res_attrs = [{}], sym_name = "_uniform_2", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<1x1xf32>
    %1 = "stablehlo.broadcast_in_dim"(%arg2) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<1x1xf32>
    %2 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<2xui32>) -> tensor<1xui32>
    %3 = "stablehlo.reshape"(%2) : (tensor<1xui32>) -> tensor<ui32>
    %4 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<2xui32>) -> tensor<1xui32>
    %5 = "stablehlo.reshape"(%4) : (tensor<1xui32>) -> tensor<ui32>
    %6 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4x3xui64>
    %7 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x3xui64>
    %8 = "stablehlo.constant"() <{value = dense<3> : tensor<ui64>}> : () -> tensor<ui64>
    %9 = "stablehlo.broadcast_in_dim"(%8) <{broadcast_dimensions = array<i64>}> : (tensor<ui64>) -> tensor<4x3xui64>
    %10 = "stablehlo.multiply"(%9, %6) : (tensor<4x3xui64>, tensor<4x3xui64>) -> tensor<4x3xui64>
    %11 = "stablehlo.constant"() <{value = dense<1> : tensor<ui64>}> : () -> tensor<ui64>
    %12 = "stablehlo.broadcast_in_dim"(%11) <{broadcast_dimensions = array<i64>}> : (tensor<ui64>) -> tensor<4x3xui64>
    %13 = "stablehlo.multiply"(%12, %7) : (tensor<4x3xui64>, tensor<4x3xui64>) -> tensor<4x3xui64>
    %14 = "stablehlo.add"(%10, %13) : (tensor<4x3xui64>, tensor<4x3xui64>) -> tensor<4x3xui64>
    %15 = "stablehlo.constant"() <{value = dense<32> : tensor<ui64>}> : () -> tensor<ui64>
    %16 = "stablehlo.broadcast_in_dim"(%15) <{broadcast_dimensions = array<i64>}> : (tensor<ui64>) -> tensor<4x3xui64>
    %17 = "stablehlo.shift_right_logical"(%14, %16) : (tensor<4x3xui64>, tensor<4x3xui64>) -> tensor<4x3xui64>
    %18 = "stablehlo.convert"(%14) : (tensor<4x3xui64>) -> tensor<4x3xui32>
    %19 = "stablehlo.convert"(%17) : (tensor<4x3xui64>) -> tensor<4x3xui32>
    %20:2 = "func.call"(%3, %5, %19, %18) <{callee = @threefry2x32_0}> : (tensor<ui32>, tensor<ui32>, tensor<4x3xui32>, tensor<4x3xui32>) -> (tensor<4x3xui32>, tensor<4x3xui32>)
    %21 = "stablehlo.xor"(%20#0, %20#1) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %22 = "stablehlo.constant"() <{value = dense<9> : tensor<ui32>}> : () -> tensor<ui32>
    %23 = "stablehlo.broadcast_in_dim"(%22) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %24 = "stablehlo.shift_right_logical"(%21, %23) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %25 = "stablehlo.constant"() <{value = dense<1065353216> : tensor<ui32>}> : () -> tensor<ui32>
    %26 = "stablehlo.broadcast_in_dim"(%25) <{broadcast_dimensions = array<i64>}> : (tensor<ui32>) -> tensor<4x3xui32>
    %27 = "stablehlo.or"(%24, %26) : (tensor<4x3xui32>, tensor<4x3xui32>) -> tensor<4x3xui32>
    %28 = "stablehlo.bitcast_convert"(%27) : (tensor<4x3xui32>) -> tensor<4x3xf32>
    %29 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %30 = "stablehlo.broadcast_in_dim"(%29) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x3xf32>
    %31 = "stablehlo.subtract"(%28, %30) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %32 = "stablehlo.subtract"(%1, %0) : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
    %33 = "stablehlo.broadcast_in_dim"(%32) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %34 = "stablehlo.multiply"(%31, %33) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %35 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %36 = "stablehlo.add"(%34, %35) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %37 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %38 = "stablehlo.maximum"(%37, %36) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    "func.return"(%38) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
