#!/usr/bin/env python3
"""gen_hlo_corpus.py — writes the StableHLO fuzz seeds into fuzz/corpus/hlo/.

valid_*: modules cj_import_stablehlo imports (small fixtures of
tests/data/stablehlo/ and hand-written ones); every other seed is refused
(truncations, bad tokens, deep nesting, dynamic shapes, unknown types).
Run from the repository root: python3 fuzz/gen_hlo_corpus.py
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus", "hlo")
DATA = os.path.join(ROOT, "tests", "data", "stablehlo")
os.makedirs(OUT, exist_ok=True)

seeds = {}
for name in ["mlp", "solver", "linsolve", "cnn"]:
    with open(os.path.join(DATA, name + ".generic.mlir")) as f:
        seeds["valid_" + name] = f.read()
with open(os.path.join(DATA, "block.mlir")) as f:
    seeds["valid_block_pretty"] = f.read()
# the pretty form of every op syntax hlo_pretty_struct.c reads: while
# (rnn), slice (random), dynamic_slice/pad/reducer (ops_misc), convolution
# (cnn), custom_call (linsolve, linalg), sort comparators and a reduce of
# two operands (sorts)
for name in ["rnn", "random", "ops_misc", "cnn", "linsolve", "linalg", "sorts"]:
    with open(os.path.join(DATA, name + ".mlir")) as f:
        seeds["valid_" + name + "_pretty"] = f.read()
with open(os.path.join(DATA, "sorts.generic.mlir")) as f:
    seeds["valid_sorts"] = f.read()
rnn_pretty = seeds["valid_rnn_pretty"]
for k in [len(rnn_pretty) // 3, len(rnn_pretty) // 2]:
    seeds[f"truncated_rnn_pretty_{k}"] = rnn_pretty[:k]
conv = seeds["valid_cnn_pretty"]
seeds["conv_bad_dims"] = conv.replace("[b, 0, 1, f]x", "[b, 0, 1, f]y", 1)
seeds["conv_bad_window"] = conv.replace("stride = [1, 1]", "stroke = [1, 1]", 1)
seeds["slice_bad_range"] = ("func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {\n"
                            "  %0 = stablehlo.slice %a [0:] : (tensor<4xf32>) -> tensor<2xf32>\n"
                            "  return %0 : tensor<2xf32>\n}\n")
seeds["while_no_do"] = ("func.func @main(%a: tensor<i32>) -> tensor<i32> {\n"
                        "  %0 = stablehlo.while(%it = %a) : tensor<i32>\n"
                        "  cond {\n    %c = stablehlo.compare LT, %it, %it, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                        "    stablehlo.return %c : tensor<i1>\n  }\n  return %0 : tensor<i32>\n}\n")
seeds["reducer_missing_pair"] = ("func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<f32>) -> tensor<f32> {\n"
                                 "  %0:2 = stablehlo.reduce(%a init: %c), (%b init: %c) across dimensions = [0] : "
                                 "(tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)\n"
                                 "   reducer(%x: tensor<f32>, %y: tensor<f32>) {\n    stablehlo.return %x : tensor<f32>\n  }\n"
                                 "  return %0#0 : tensor<f32>\n}\n")
mlp = seeds["valid_mlp"]
pretty = """module @m {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<[1.0, 2.0, 0x7F800000]> : tensor<3xf32>
    %0 = stablehlo.multiply %arg0, %cst : tensor<3xf32>
    %1 = call @g(%0, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
  func.func private @g(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.subtract %arg0, %arg1 : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
"""
seeds["valid_pretty"] = pretty
# a call tree of fan-out 2 and depth 30: imports, and its trace stops at the op budget
fan = ["func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = call @f0(%a) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n"]
for i in range(30):
    fan.append(f"func.func private @f{i}(%a: tensor<f32>) -> tensor<f32> {{\n"
               f"  %0 = call @f{i+1}(%a) : (tensor<f32>) -> tensor<f32>\n"
               f"  %1 = call @f{i+1}(%0) : (tensor<f32>) -> tensor<f32>\n  return %1 : tensor<f32>\n}}\n")
fan.append("func.func private @f30(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n")
seeds["valid_call_fanout"] = "".join(fan)
seeds["valid_unsupported_op"] = ('"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({\n'
                                 '^bb0(%a: tensor<f32>):\n  %0 = "stablehlo.fft"(%a) : (tensor<f32>) -> tensor<f32>\n'
                                 '  "func.return"(%0) : (tensor<f32>) -> ()\n}) : () -> ()\n')
for k in [10, 100, 500, 1000, len(mlp) // 2, len(mlp) - 3]:
    seeds[f"truncated_mlp_{k}"] = mlp[:k]
seeds["bad_token"] = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return ` %a\n}\n"
seeds["deep_attr"] = "func.func @main() -> tensor<f32> attributes {a = " + "[" * 200 + "]" * 200 + "} {\n}\n"
seeds["deep_dense"] = ('"func.func"() <{function_type = () -> tensor<f32>, sym_name = "main"}> ({\n'
                       '  %0 = "stablehlo.constant"() <{value = dense<' + "[" * 100 + "1" + "]" * 100 + '> : tensor<f32>}> : () -> tensor<f32>\n'
                       '  "func.return"(%0) : (tensor<f32>) -> ()\n}) : () -> ()\n')
seeds["deep_regions"] = ('"func.func"() <{function_type = () -> tensor<f32>, sym_name = "main"}> ('
                         + '({' * 80 + '})' * 80 + ') : () -> ()\n')
seeds["dynamic_shape"] = "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %a : tensor<?xf32>\n}\n"
seeds["complex_arg"] = "func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {\n  return %a : tensor<2xcomplex<f32>>\n}\n"
seeds["undefined_value"] = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %zz : tensor<f32>\n  return %0 : tensor<f32>\n}\n"
seeds["bad_result_index"] = ('"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({\n'
                             '^bb0(%a: tensor<f32>):\n  "func.return"(%a#7) : (tensor<f32>) -> ()\n}) : () -> ()\n')
seeds["huge_dim"] = "func.func @main(%a: tensor<99999999999999999999xf32>) -> tensor<f32> {\n}\n"
seeds["unterminated_string"] = 'func.func @main() attributes {a = "abc'
seeds["empty"] = ""
seeds["hex_odd"] = ('"func.func"() <{function_type = () -> tensor<f32>, sym_name = "main"}> ({\n'
                    '  %0 = "stablehlo.constant"() <{value = dense<"0x123"> : tensor<f32>}> : () -> tensor<f32>\n'
                    '  "func.return"(%0) : (tensor<f32>) -> ()\n}) : () -> ()\n')
for name, text in seeds.items():
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text)
print(len(seeds), "seeds")
