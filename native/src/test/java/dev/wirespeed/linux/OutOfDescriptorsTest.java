package dev.wirespeed.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server that runs out of descriptors for real ({@code EMFILE}), in a child JVM whose limit is
 * lowered to 512 ({@code ulimit -n}) and which then opens files until none is left: see
 * {@link OutOfDescriptorsChild} for what it checks.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native transports are Linux's")
class OutOfDescriptorsTest {
    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void aServerOutOfDescriptorsStopsAcceptingForAWhileAndServesOnceSomeComeBack(String transport) throws Exception {
        if (transport.equals("epoll")) {
            NativeFeatures.assumeEpoll();
        } else {
            NativeFeatures.assumeIoUring();
        }
        String javaBin = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>(List.of("sh", "-c", "ulimit -n 512 && exec \"$@\"", "sh", javaBin));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--enable-native-access") || arg.startsWith("--add-modules")) {
                command.add(arg);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), OutOfDescriptorsChild.class.getName(),
                transport));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        child.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!child.waitFor(60, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            fail("the child still ran after 60 s: " + out.get(10, TimeUnit.SECONDS));
        }
        assertEquals(0, child.exitValue(), out.get(10, TimeUnit.SECONDS));
    }
}
