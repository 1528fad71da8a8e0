"""The Python side of oonic: what the commands in scripts/ share (standard library only).

Each command puts scripts/lib on sys.path (one line) and imports what it needs:

    from oonic import paths, results, batch

- paths:            the repository root, the build directory, the oonic binary (OONIC_BIN,
                    OONIC_BUILD_DIR) and scripts/build
- quoting:          file-name-safe text and shell quoting
- points:           a batch point (one command writing one directory, done when its
                    done.json says so) and its record; a sweep point and its id
- batch:            running batch points here or as a Slurm job array (scripts/batch is its
                    command line: a Slurm array task, one command as a point)
- results:          `oonic params` / `oonic stats` listings, stat paths into stats.json,
                    values as results.csv writes them
- experiment_tools: the C++ tools of the experiments (testbench/tools/<name>.cpp)
- mprdma_testbed:   MP-RDMA's section 5 testbed, shared by scripts/experiments/mprdma-*
"""
