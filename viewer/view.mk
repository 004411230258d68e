# viewer/view.mk: bin/shmemu-view, the viewer of event logs (docs/view.md). Included by the
# top Makefile:
#   $(VIEW_BIN)       bin/shmemu-view (plain build) or $(BUILD)/bin/shmemu-view (part of `make all`)
#   make check-view   its pages opened in headless Chromium (tests/check-view.sh; needs
#                     `scripts/ensure-deps.sh view`)
# The page's HTML, CSS and JavaScript (viewer/page/) are compiled into the program: the
# build tool viewer/embed.c writes them as C arrays into $(BUILD)/viewer/page.c.

VIEW_BIN   := $(PROG_DIR)/shmemu-view
VIEW_SRC   := viewer/shmemu_view.c viewer/view_json.c viewer/view_log.c viewer/view_report.c
VIEW_OBJ   := $(VIEW_SRC:%.c=$(BUILD)/%.o) $(BUILD)/viewer/page.o
VIEW_PAGE  := viewer/page/view.html viewer/page/view.css viewer/page/view.js

.PHONY: check-view

all: $(VIEW_BIN)

# A tool of the build, run where it is built: no sanitizer.
$(BUILD)/viewer/embed: viewer/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O1 $(WARN) -o $@ $<

$(BUILD)/viewer/page.c: $(BUILD)/viewer/embed $(VIEW_PAGE)
	$(BUILD)/viewer/embed $@ view_page_html=viewer/page/view.html \
	    view_page_css=viewer/page/view.css view_page_js=viewer/page/view.js

$(BUILD)/viewer/page.o: $(BUILD)/viewer/page.c
	$(CC) $(CFLAGS) -c $< -o $@

$(VIEW_BIN): $(VIEW_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(VIEW_OBJ)

check-view: $(VIEW_BIN)
	@VIEW_BIN=$(VIEW_BIN) tests/check-view.sh

# Installed beside the other tools (the page is inside the program).
.PHONY: install-view
install: install-view
install-view: $(VIEW_BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(VIEW_BIN) $(DESTDIR)$(PREFIX)/bin/

-include $(VIEW_SRC:%.c=$(BUILD)/%.d)
