/*
 * A disassembler plug-in for HotSpot (-XX:+PrintAssembly, JMH's -prof perfasm) over the capstone
 * library, for x86-64. HotSpot loads hsdis-amd64.so from the JDK's lib/server, lib, or the library
 * path and calls decode_instructions_virtual once per block of code; this one prints each
 * instruction in AT&T syntax and reports where each starts and ends, so that HotSpot can interleave
 * its comments. Built by build.sh beside it; a development tool only, not part of the library.
 */
#include <capstone/capstone.h>
#include <stdint.h>

typedef void *(*event_callback)(void *stream, const char *event, void *arg);
typedef int (*printf_callback)(void *stream, const char *format, ...);

void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer, uintptr_t length,
                                  event_callback event, void *event_stream, printf_callback print,
                                  void *print_stream, const char *options, int newline) {
    (void) end_va;
    (void) options;
    csh handle;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
        return NULL;
    }
    cs_option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    cs_insn *insn = cs_malloc(handle);
    const uint8_t *code = buffer;
    size_t left = length;
    uint64_t address = start_va;
    while (left > 0) {
        uint64_t at = address;
        if (event) event(event_stream, "insn", (void *) (uintptr_t) at);
        if (cs_disasm_iter(handle, &code, &left, &address, insn)) {
            print(print_stream, "%s %s", insn->mnemonic, insn->op_str);
        } else { /* not an instruction (data, padding): show one byte and go on */
            print(print_stream, ".byte 0x%02x", *code);
            code++;
            left--;
            address++;
        }
        if (event) event(event_stream, "/insn", (void *) (uintptr_t) address);
        if (newline) print(print_stream, "\n");
    }
    cs_free(insn, 1);
    cs_close(&handle);
    return (void *) (uintptr_t) address;
}
