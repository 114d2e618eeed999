# lit configuration for MQSS-Selector's tool tests.
import os
import sys
import lit.formats

config.name = "MQSS"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mqss_obj_root, "test")

# Longer names first: lit substitutes in order and %mqss is their prefix.
config.substitutions.append(("%mqss-opt", os.path.join(config.mqss_tools_dir, "mqss-opt")))
config.substitutions.append(("%mqss-bench", os.path.join(config.mqss_tools_dir, "mqss-bench")))
config.substitutions.append(
    ("%mqss-plugin", os.path.join(config.mqss_obj_root, "lib", "libMQSSPlugin.so")))
config.substitutions.append(("%mqss", os.path.join(config.mqss_tools_dir, "mqss")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%examples", os.path.join(config.mqss_src_root, "examples")))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(
    ("split-file", os.path.join(os.path.dirname(config.filecheck), "split-file")))
config.substitutions.append(("%not", config.not_tool))
config.substitutions.append(("%mlir-opt", config.mlir_opt))
config.environment["LANG"] = "C"
config.substitutions.append(("%python", sys.executable))
