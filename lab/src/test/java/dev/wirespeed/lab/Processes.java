package dev.wirespeed.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code wirespeed} commands as real processes, for the tests that need a second JVM. */
final class Processes {
    static final Pattern LISTENING = Pattern.compile("listening on \\S+:(\\d+)");

    private Processes() {
    }

    /** {@return a {@code wirespeed} command line in a JVM of this test's java and class path} */
    static ProcessBuilder command(String... args) {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    /** {@return the port of a server that printed "listening on HOST:PORT" first on its standard error} */
    static int listeningPort(Process server) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8));
        String line = err.readLine();
        Matcher matcher = LISTENING.matcher(String.valueOf(line));
        if (!matcher.find()) {
            throw new AssertionError("the server did not start; it said: " + line);
        }
        return Integer.parseInt(matcher.group(1));
    }

    static String readAll(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
