# install rules, CMake package config and pkg-config file (owned by the build infra)
