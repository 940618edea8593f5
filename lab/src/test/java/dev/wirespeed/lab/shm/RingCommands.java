package dev.wirespeed.lab.shm;

import dev.wirespeed.lab.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * What the tests of the shared-memory commands share: a directory for their rings (under
 * {@code /dev/shm} where there is one), and a command run on a thread of its own, the ends of a link
 * waiting for each other.
 */
public final class RingCommands {
    private RingCommands() {
    }

    /**
     * A command's run: its exit code, standard output and standard error.
     *
     * @param code the exit code
     * @param out what it printed on standard output
     * @param err what it printed on standard error
     */
    public record Run(int code, String out, String err) {
    }

    /** {@return {@code args} run as the {@code wirespeed} command line, on a platform thread of its own} */
    public static CompletableFuture<Run> start(String... args) {
        return CompletableFuture.supplyAsync(() -> {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            var commandLine = Main.commandLine();
            commandLine.setOut(new PrintWriter(out, true));
            commandLine.setErr(new PrintWriter(err, true));
            int code = commandLine.execute(args);
            return new Run(code, out.toString(), err.toString());
        }, task -> Thread.ofPlatform().daemon().name(args[0]).start(task)); // a thread each: they wait for each other
    }

    /** {@return a new directory named from {@code prefix}, under {@code /dev/shm} where it exists, else the temporary one} */
    public static Path directory(String prefix) throws IOException {
        Path shm = Path.of("/dev/shm");
        return Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                prefix);
    }

    /** Deletes {@code dir} and all below it; nothing where it is null. */
    public static void delete(Path dir) throws IOException {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
