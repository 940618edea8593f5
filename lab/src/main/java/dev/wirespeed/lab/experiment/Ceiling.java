package dev.wirespeed.lab.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The C ceiling programs ({@code ceiling.c}, {@code pingpong.c}), compiled with {@code cc -O2} from the sources the lab carries. */
final class Ceiling {
    private Ceiling() {
    }

    /**
     * {@return the compiled program, or null (with a note saying why) where it cannot be built}
     *
     * @param name the program: {@code ceiling} or {@code pingpong}
     */
    static Path compile(LabRun lab, String name) throws IOException, InterruptedException {
        if (!Tools.has("cc")) {
            String note = "no C compiler (cc) on the PATH: the C ceiling rows are skipped (install gcc to add them)";
            if (!lab.notes.contains(note)) {
                lab.notes.add(note);
            }
            return null;
        }
        Path dir = Files.createTempDirectory("wirespeed-" + name + "-");
        Path source = dir.resolve(name + ".c");
        try (InputStream in = Ceiling.class.getResourceAsStream(name + ".c")) {
            if (in == null) {
                throw new IOException(name + ".c is missing from the lab's resources");
            }
            Files.copy(in, source);
        }
        Path binary = dir.resolve(name);
        Process cc = new ProcessBuilder("cc", "-O2", "-o", binary.toString(), source.toString())
                .redirectErrorStream(true).start();
        String output = StreamExperiment.drain(cc.getInputStream());
        if (!cc.waitFor(2, TimeUnit.MINUTES) || cc.exitValue() != 0) {
            lab.notes.add("cc -O2 " + name + ".c failed, its C ceiling rows are skipped: " + output);
            return null;
        }
        binary.toFile().deleteOnExit();
        source.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        return binary;
    }
}
