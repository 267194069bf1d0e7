# build.mk -- readfile's uring backend uses liburing (included by the Makefile).
#
# Linux, optional: uring_linux.c is built with liburing when pkg-config knows
# it and its header compiles (-DAB_HAVE_LIBURING); without it the backend is
# still there and says it is unavailable (exit 3), and the rest builds.
# `make deps` installs liburing-dev on Debian and Ubuntu.
ifeq ($(UNAME_S),Linux)
# Asked once per make, when first needed (after deps): recursive, and
# redefined by its own first expansion.
URING_OK = $(eval URING_OK := $(shell $(PKG_CONFIG) --exists liburing 2>/dev/null && $(CC) $$($(PKG_CONFIG) --cflags liburing 2>/dev/null) -include liburing.h -E -x c -o /dev/null /dev/null 2>/dev/null && echo yes))$(URING_OK)
EXT_CFLAGS += $(if $(URING_OK),-DAB_HAVE_LIBURING $(shell $(PKG_CONFIG) --cflags liburing 2>/dev/null))
EXT_LIBS += $(if $(URING_OK),$(shell $(PKG_CONFIG) --libs liburing 2>/dev/null))
endif
