package dev.wirespeed.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A C source kept beside a benchmark, compiled with the system's {@code cc -O2} (or {@code CC}) into
 * a temporary shared library and loaded, for benchmarks that set the library beside C in one run.
 */
public final class CLibrary {
    private CLibrary() {
    }

    /**
     * Compiles and loads {@code source}, a resource next to {@code owner}.
     *
     * @param owner the class the source lies beside
     * @param source its file name, as {@code frameloop.c}
     * @param libraries the system libraries it links, as {@code ssl} for {@code -lssl}
     * @return the loaded library's symbols, for the JVM's life
     * @throws IllegalStateException naming the command if there is no C compiler or it fails
     * @throws IOException if the source cannot be copied out
     * @throws InterruptedException if interrupted while the compiler runs
     */
    @SuppressWarnings("restricted") // loads the library just compiled
    public static SymbolLookup compile(Class<?> owner, String source, String... libraries)
            throws IOException, InterruptedException {
        String name = source.substring(0, source.lastIndexOf('.'));
        Path dir = Files.createTempDirectory(name);
        Path copy = dir.resolve(source);
        try (InputStream in = owner.getResourceAsStream(source)) {
            if (in == null) {
                throw new IllegalStateException(source + " is not on the class path next to " + owner);
            }
            Files.copy(in, copy);
        }
        Path library = dir.resolve("lib" + name + ".so");
        String cc = System.getenv().getOrDefault("CC", "cc");
        List<String> command = new ArrayList<>(List.of(cc, "-O2", "-shared", "-fPIC", "-o", library.toString(),
                copy.toString()));
        for (String l : libraries) {
            command.add("-l" + l);
        }
        Process process;
        try {
            process = new ProcessBuilder(command).inheritIO().start();
        } catch (IOException e) {
            throw new IllegalStateException("no C compiler: " + String.join(" ", command) + " failed to start (set CC)", e);
        }
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + exit);
        }
        return SymbolLookup.libraryLookup(library, Arena.global());
    }
}
