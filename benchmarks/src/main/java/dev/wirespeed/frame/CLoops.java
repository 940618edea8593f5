package dev.wirespeed.frame;

import dev.wirespeed.benchmark.CLibrary;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The lab's C reader and writer loops ({@code frameloop.c}, the inner loops of {@code ceiling.c}),
 * compiled with the system's {@code cc -O2} (or {@code CC}) into a temporary library and linked
 * through FFM, for benchmarks that set the library beside C in one run. Each call handles many frames,
 * so the downcall's own cost is spread thin.
 */
final class CLoops {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    /** {@code frameloop_parse(buf, have, frames, *bytes)}: frames parsed, or -1 for a bad length. */
    final MethodHandle parse;
    /** {@code frameloop_write(buf, cap, pattern, size, frames, *next)}: bytes stored. */
    final MethodHandle write;

    private CLoops(MethodHandle parse, MethodHandle write) {
        this.parse = parse;
        this.write = write;
    }

    /**
     * Compiles and links the loops.
     *
     * @return the loops
     * @throws IllegalStateException naming the command if there is no C compiler or it fails
     */
    @SuppressWarnings("restricted") // links the compiled library's functions
    static CLoops compile() throws IOException, InterruptedException {
        SymbolLookup lookup = CLibrary.compile(CLoops.class, "frameloop.c");
        Linker linker = Linker.nativeLinker();
        MethodHandle parse = linker.downcallHandle(lookup.find("frameloop_parse").orElseThrow(),
                FunctionDescriptor.of(LONG, ValueLayout.ADDRESS, LONG, LONG, ValueLayout.ADDRESS));
        MethodHandle write = linker.downcallHandle(lookup.find("frameloop_write").orElseThrow(),
                FunctionDescriptor.of(LONG, ValueLayout.ADDRESS, LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, LONG,
                        ValueLayout.ADDRESS));
        return new CLoops(parse, write);
    }

    /** {@return a native segment of {@code bytes}, for the loops' pointer arguments} */
    static MemorySegment copyOf(byte[] bytes) {
        return Arena.global().allocate(bytes.length).copyFrom(MemorySegment.ofArray(bytes));
    }
}
