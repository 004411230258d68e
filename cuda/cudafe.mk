# cuda/cudafe.mk: shmemu-cudafe, the source rewriter of shmemu-nvcc (cuda/tools/cudafe.h),
# and its tests. Included by the top Makefile:
#   $(CUDAFE_BIN)     bin/shmemu-cudafe (plain build) or $(BUILD)/bin/shmemu-cudafe, beside
#                     which bin/shmemu-nvcc looks for it (part of `make all`)
#   make check-cudafe the rewriter's expected outputs, its error messages, its outputs
#                     compiled by the host C++ compiler, and bin/shmemu-nvcc end to end
#                     (tests/check-cudafe.sh; part of `make test`)
# `make install` also installs shmemu-nvcc and shmemu-cudafe into $(PREFIX)/bin.

CUDAFE_BIN := $(PROG_DIR)/shmemu-cudafe
CUDAFE_SRC := cuda/tools/cudafe.c cuda/tools/cudafe_lex.c cuda/tools/cudafe_rw.c
CUDAFE_OBJ := $(CUDAFE_SRC:%.c=$(BUILD)/%.o)

.PHONY: check-cudafe install-cudafe

all: $(CUDAFE_BIN)

$(CUDAFE_BIN): $(CUDAFE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(CUDAFE_OBJ)

check-cudafe: $(CUDAFE_BIN) libs
	@BUILD=$(BUILD) CUDAFE=$(CUDAFE_BIN) SANITIZE=$(SANITIZE) CC=$(CC) tests/check-cudafe.sh

test: check-cudafe

install: install-cudafe
install-cudafe: $(CUDAFE_BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 bin/shmemu-nvcc $(CUDAFE_BIN) $(DESTDIR)$(PREFIX)/bin/

-include $(CUDAFE_OBJ:.o=.d)
