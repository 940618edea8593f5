package dev.wirespeed.lab.env;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Starts {@code wirespeed} commands as separate JVMs, with this JVM's java and class path and the
 * launcher's flags, pinned to a CPU with {@code taskset} when asked.
 *
 * @param mainClass the class whose {@code main} runs a {@code wirespeed} command line
 */
public record Jvm(String mainClass) {
    /** The flags of the launcher, so that lab figures match what a user runs. */
    public static final List<String> FLAGS = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC");

    /**
     * Checks the class name.
     *
     * @throws NullPointerException if it is null
     */
    public Jvm {
        Objects.requireNonNull(mainClass, "mainClass");
    }

    /**
     * {@return the command line of a {@code wirespeed} JVM}
     *
     * @param cpu the CPU to pin it to, or -1 for unpinned
     * @param args the {@code wirespeed} arguments
     */
    public List<String> command(int cpu, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(FLAGS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return Children.pinned(cpu, command);
    }

    /**
     * {@return a started {@code wirespeed} JVM}
     *
     * @param cpu the CPU to pin it to, or -1 for unpinned
     * @param args the {@code wirespeed} arguments
     * @throws IOException if it cannot be started
     */
    public Process start(int cpu, List<String> args) throws IOException {
        return new ProcessBuilder(command(cpu, args)).start();
    }
}
