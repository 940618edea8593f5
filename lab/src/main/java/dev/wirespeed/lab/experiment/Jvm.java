package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.Main;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts {@code wirespeed} commands as separate JVMs, with this JVM's java and class path, pinned to a
 * CPU with {@code taskset} when asked. Every child gets the launcher's flags.
 */
final class Jvm {
    /** The flags of the launcher, so that lab figures match what a user runs. */
    static final List<String> FLAGS = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC");

    private Jvm() {
    }

    /** {@return the command line of a {@code wirespeed} JVM, pinned to {@code cpu} unless it is negative} */
    static List<String> command(int cpu, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(FLAGS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(args);
        return StreamExperiment.pinned(cpu, command);
    }

    static Process start(int cpu, List<String> args) throws IOException {
        return new ProcessBuilder(command(cpu, args)).start();
    }
}
