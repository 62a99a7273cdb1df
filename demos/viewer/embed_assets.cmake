# Writes OUTPUT: a C file with each of FILES (paths relative to ROOT) as a
# NUL-terminated byte array and a table of them by path (assets.h), so the
# viewer carries the same text it reads from assets/ at run time. Run at
# build time:
#   cmake -DROOT=DIR -DOUTPUT=FILE.c "-DFILES=a;b" -P embed_assets.cmake
set(body "/* Generated from assets/ by demos/viewer/embed_assets.cmake. */\n")
string(APPEND body "#include \"assets.h\"\n\n")
set(table "")
set(index 0)
foreach(file IN LISTS FILES)
  file(READ "${ROOT}/${file}" hex HEX)
  string(LENGTH "${hex}" digits)
  math(EXPR size "${digits} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1, " bytes "${hex}")
  # twelve to a line (CMake's regular expressions have no {12})
  string(REPEAT "0x[0-9a-f][0-9a-f], " 12 twelve)
  string(REGEX REPLACE "(${twelve})" "\\1\n    " bytes "${bytes}")
  string(APPEND body "static const unsigned char asset_${index}[] = {\n    ${bytes}0x00};\n\n")
  string(APPEND table "    {\"${file}\", asset_${index}, ${size}},\n")
  math(EXPR index "${index} + 1")
endforeach()
string(APPEND body "const embedded_asset embedded_assets[] = {\n${table}};\n")
string(APPEND body "const int embedded_asset_count = ${index};\n")
file(WRITE "${OUTPUT}.tmp" "${body}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
