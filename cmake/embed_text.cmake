# embed_text.cmake — writes file IN as a C array SYM (its bytes, then a
# terminating zero) into OUT, for text the library emits at run time
# (the exporter's copy of vmath.c). Run as cmake -DIN= -DOUT= -DSYM= -P.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
get_filename_component(name ${IN} NAME)
file(WRITE ${OUT} "/* generated from ${name} by cmake/embed_text.cmake: do not edit */\nstatic const char ${SYM}[] = {${hex}0x00};\n")
