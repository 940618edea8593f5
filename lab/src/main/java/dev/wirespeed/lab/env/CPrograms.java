package dev.wirespeed.lab.env;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The C programs of the lab's ceilings, compiled with {@code cc -O2} from the sources the lab carries,
 * once per lab run, on first use.
 *
 * <p>Thread safety: used by the lab's one driving thread.
 */
public final class CPrograms {
    /** A C program the lab carries. */
    public enum Program {
        /** {@code ceiling.c}: a batching frame writer and a header-walking reader, blocking or busy-polling. */
        CEILING("ceiling"),
        /** {@code pingpong.c}: a ping and an echo, blocking or busy-polling. */
        PINGPONG("pingpong"),
        /** {@code many.c}: an epoll echo server, and a load generator over many connections. */
        MANY("many"),
        /**
         * {@code shmring.c}: the shared ring's layout in C (a writer, a reader, a ping-pong's two ends) and a
         * probe of the kernel's futex wake-up.
         */
        SHMRING("shmring");

        private final String name;

        Program(String name) {
            this.name = name;
        }
    }

    private final Consumer<String> notes;
    private final Map<Program, Optional<Path>> compiled = new EnumMap<>(Program.class);

    /**
     * Programs compiled on first use.
     *
     * @param notes receives why a program is missing
     */
    public CPrograms(Consumer<String> notes) {
        this.notes = notes;
    }

    /**
     * {@return the compiled program, or empty (with a note saying why) where it cannot be built}
     *
     * @param program which
     * @throws IOException if its source cannot be written out
     * @throws InterruptedException if interrupted while compiling
     */
    public Optional<Path> get(Program program) throws IOException, InterruptedException {
        Optional<Path> binary = compiled.get(program);
        if (binary == null) {
            binary = Optional.ofNullable(compile(program));
            compiled.put(program, binary);
        }
        return binary;
    }

    private Path compile(Program program) throws IOException, InterruptedException {
        if (!Tools.has("cc")) {
            notes.accept("no C compiler (cc) on the PATH: the C ceiling rows are skipped (install gcc to add them)");
            return null;
        }
        Path dir = Files.createTempDirectory("wirespeed-" + program.name + "-");
        Path source = dir.resolve(program.name + ".c");
        try (InputStream in = CPrograms.class.getResourceAsStream(program.name + ".c")) {
            if (in == null) {
                throw new IOException(program.name + ".c is missing from the lab's resources");
            }
            Files.copy(in, source);
        }
        Path binary = dir.resolve(program.name);
        Process cc = new ProcessBuilder("cc", "-O2", "-o", binary.toString(), source.toString())
                .redirectErrorStream(true).start();
        String output = Children.drain(cc.getInputStream());
        if (!cc.waitFor(2, TimeUnit.MINUTES) || cc.exitValue() != 0) {
            notes.accept("cc -O2 " + program.name + ".c failed, its C ceiling rows are skipped: " + output);
            return null;
        }
        binary.toFile().deleteOnExit();
        source.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        return binary;
    }
}
