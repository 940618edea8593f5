package dev.wirespeed.lab.env;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the lab ran on, named in every report so that figures are never quoted without their machine.
 *
 * @param cpu the CPU model, as {@code /proc/cpuinfo} names it, or {@code unknown}
 * @param cpus the CPUs this JVM may use
 * @param memory the memory, as {@code /proc/meminfo} states it, or {@code unknown}
 * @param os the operating system, its version and architecture
 * @param jdk the JDK's vendor, runtime and version
 */
public record Machine(String cpu, int cpus, String memory, String os, String jdk) {
    /** Read once, when the lab starts: before in-process experiments pin the thread to one CPU. */
    private static final Machine THIS = read();

    /** {@return this machine} */
    public static Machine current() {
        return THIS;
    }

    private static Machine read() {
        return new Machine(firstValue(Path.of("/proc/cpuinfo"), "model name"), Runtime.getRuntime().availableProcessors(),
                firstValue(Path.of("/proc/meminfo"), "MemTotal"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.name") + " "
                        + Runtime.version());
    }

    /** {@return one line for the top of a report} */
    @Override
    public String toString() {
        return jdk + " on " + cpu + ", " + cpus + " CPUs, " + memory + ", " + os;
    }

    private static String firstValue(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        } catch (IOException e) {
            // not Linux, or not readable: said as "unknown"
        }
        return "unknown";
    }
}
