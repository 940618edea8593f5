package dev.wirespeed.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code scripts/jdk.sh}, which ./mvnw and ./wirespeed use to find a JDK >= 25. */
class LauncherScriptTest {
    private static final Path SCRIPT = Path.of("..", "scripts", "jdk.sh").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    record Result(int code, String out, String err) {
    }

    private Result source(String call, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", ". '" + SCRIPT + "' && " + call);
        builder.environment().keySet().removeAll(List.of("JAVA_HOME", "WIRESPEED_JAVA_HOME"));
        builder.environment().put("PATH", "/usr/bin:/bin");
        builder.environment().putAll(env);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.waitFor(), out, err);
    }

    private Path fakeJdk(String name, String version) throws Exception {
        Path home = Files.createDirectories(dir.resolve(name));
        Path bin = Files.createDirectories(home.resolve("bin"));
        for (String tool : List.of("java", "javac")) {
            Path file = Files.writeString(bin.resolve(tool), "#!/bin/sh\n");
            file.toFile().setExecutable(true);
        }
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
        return home;
    }

    @Test
    void failsWithOneLineNamingWhatToInstallWhenNoJdk25Exists() throws Exception {
        fakeJdk("jdk-17", "17.0.15");
        Result result = source("wirespeed_use_jdk", Map.of("WIRESPEED_JDK_DIRS", dir + "/*"));
        assertEquals(1, result.code());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("wirespeed: no JDK 25 or newer found"), result.err());
        assertTrue(result.err().contains("install one"), result.err());
    }

    @Test
    void picksTheNewestJdkOf25OrLaterAmongTheFolders() throws Exception {
        fakeJdk("jdk-17", "17.0.15");
        fakeJdk("jdk-25", "25.0.1");
        Path newest = fakeJdk("jdk-26", "26");
        Result result = source("wirespeed_find_jdk", Map.of("WIRESPEED_JDK_DIRS", dir + "/*"));
        assertEquals(0, result.code(), result.err());
        assertEquals(newest + "\n", result.out());
    }

    @Test
    void takesAQualifyingWirespeedJavaHomeAsItIs() throws Exception {
        Path chosen = fakeJdk("jdk-25", "25.0.1");
        fakeJdk("jdk-26", "26");
        Result result = source("wirespeed_find_jdk",
                Map.of("WIRESPEED_JDK_DIRS", dir + "/*", "WIRESPEED_JAVA_HOME", chosen.toString()));
        assertEquals(chosen + "\n", result.out());
    }
}
