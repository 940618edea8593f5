package dev.wirespeed.testing;

import dev.wirespeed.testing.Environment.Feature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** The {@code openssl} command, whose {@code s_client} and {@code s_server} are TLS peers nobody here wrote. */
final class OpenSslCommand {
    private OpenSslCommand() {
    }

    /** Goes on where {@code openssl version} runs and says it is OpenSSL ({@link Feature#OPENSSL}). */
    static void assumeOpenssl() {
        String why = missing();
        Environment.assume(Feature.OPENSSL, why == null, why);
    }

    /** {@return null where {@code openssl version} runs and says it is OpenSSL, else why not} */
    private static String missing() {
        Process p;
        try {
            p = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
        } catch (IOException e) {
            return "no openssl command on the PATH: " + e.getMessage();
        }
        try {
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(SServer.WAIT_SECONDS, TimeUnit.SECONDS)) {
                return "openssl version did not end within " + SServer.WAIT_SECONDS + " s";
            }
            return p.exitValue() == 0 && out.startsWith("OpenSSL ") ? null
                    : "openssl version exited " + p.exitValue() + " saying: " + out;
        } catch (IOException | InterruptedException e) {
            return "openssl version failed: " + e;
        } finally {
            p.destroyForcibly();
        }
    }
}
