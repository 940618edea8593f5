package dev.wirespeed.lab.env;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** External programs the lab may use, found on the {@code PATH}. */
public final class Tools {
    private Tools() {
    }

    /**
     * {@return true if {@code program} is an executable on the PATH}
     *
     * @param program a program name, e.g. {@code cc}
     */
    public static boolean has(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
