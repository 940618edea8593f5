package dev.wirespeed.lab.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the lab ran on: named in every report so that figures are never quoted without their machine. */
final class Machine {
    private Machine() {
    }

    /** Read once, when the lab starts: before in-process experiments pin the thread to one CPU. */
    private static final Map<String, String> MACHINE = read();

    static Map<String, String> describe() {
        return MACHINE;
    }

    private static Map<String, String> read() {
        Map<String, String> machine = new LinkedHashMap<>();
        machine.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
        machine.put("cpus", String.valueOf(Runtime.getRuntime().availableProcessors()));
        String memory = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        machine.put("memory", memory);
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        return java.util.Collections.unmodifiableMap(machine);
    }

    static String jdk() {
        return System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.name") + " "
                + Runtime.version();
    }

    private static String firstValue(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        } catch (IOException e) {
            // not Linux, or not readable: say so below
        }
        return "unknown";
    }
}
