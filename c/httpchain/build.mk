# build.mk -- httpchain parses HTTP with llhttp (included by the Makefile).
#
# Debian's node-llhttp ships llhttp's C sources and header (/usr/share/llhttp,
# /usr/share/include/llhttp): they are compiled into the build folder and
# archived with the workload's pieces.  Homebrew's llhttp is a library with a
# pkg-config file.  LLHTTP_DIR (the folder of api.c, http.c, llhttp.c) and
# LLHTTP_INCLUDE may point elsewhere; `make deps` installs one of the two.
LLHTTP_DIR ?= $(firstword $(wildcard /usr/share/llhttp /usr/local/share/llhttp))
LLHTTP_INCLUDE ?= $(firstword $(wildcard /usr/share/include/llhttp /usr/local/share/include/llhttp))
LLHTTP_SOURCES := $(if $(LLHTTP_DIR),$(wildcard $(LLHTTP_DIR)/api.c $(LLHTTP_DIR)/http.c $(LLHTTP_DIR)/llhttp.c))

ifneq ($(LLHTTP_SOURCES),)
EXT_CFLAGS += -I$(LLHTTP_INCLUDE)
EXT_OBJ_httpchain := $(patsubst $(LLHTTP_DIR)/%.c,$(BUILD)/c/httpchain/llhttp/%.o,$(LLHTTP_SOURCES))
# Third-party code: the project's warnings are not asked of it.
$(BUILD)/c/httpchain/llhttp/%.o: $(LLHTTP_DIR)/%.c c/httpchain/build.mk $(FLAGS_STAMP) | $(DEPS_ENV)
	@mkdir -p "$(dir $@)"
	$(CC) $(STD) $(FEATURES) -I$(LLHTTP_INCLUDE) $(OPT) $(CFLAGS) -w -c "$<" -o "$@"
else
EXT_CFLAGS += $(shell $(PKG_CONFIG) --cflags libllhttp 2>/dev/null)
EXT_LIBS += $(shell $(PKG_CONFIG) --libs libllhttp 2>/dev/null || echo -lllhttp)
endif
