package dev.wirespeed.lab.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The C ceiling program, compiled with {@code cc -O2} from the source the lab carries. */
final class Ceiling {
    private Ceiling() {
    }

    /** {@return the compiled program, or null (with a note saying why) where it cannot be built} */
    static Path compile(LabRun lab) throws IOException, InterruptedException {
        if (!Tools.has("cc")) {
            lab.notes.add("no C compiler (cc) on the PATH: the C ceiling rows are skipped (install gcc to add them)");
            return null;
        }
        Path dir = Files.createTempDirectory("wirespeed-ceiling-");
        Path source = dir.resolve("ceiling.c");
        try (InputStream in = Ceiling.class.getResourceAsStream("ceiling.c")) {
            if (in == null) {
                throw new IOException("ceiling.c is missing from the lab's resources");
            }
            Files.copy(in, source);
        }
        Path binary = dir.resolve("ceiling");
        Process cc = new ProcessBuilder("cc", "-O2", "-o", binary.toString(), source.toString())
                .redirectErrorStream(true).start();
        String output = StreamExperiment.drain(cc.getInputStream());
        if (!cc.waitFor(2, TimeUnit.MINUTES) || cc.exitValue() != 0) {
            lab.notes.add("cc -O2 ceiling.c failed, the C ceiling rows are skipped: " + output);
            return null;
        }
        binary.toFile().deleteOnExit();
        source.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        return binary;
    }
}
