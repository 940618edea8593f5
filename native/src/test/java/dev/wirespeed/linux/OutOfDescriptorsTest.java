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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A server that runs out of descriptors for real ({@code EMFILE}), on each transport, in a child JVM
 * whose limit is lowered to 512 ({@code ulimit -n}) and which then opens files, or connections to its
 * server, until none is left: see {@link OutOfDescriptorsChild} for what it checks.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the native transports are Linux's, and so is ulimit here")
class OutOfDescriptorsTest {
    @ParameterizedTest
    @CsvSource({"selector, files", "epoll, files", "io_uring, files", "selector, connections", "epoll, connections",
            "io_uring, connections"})
    void aServerOutOfDescriptorsStopsAcceptingForAWhileAndServesOnceSomeComeBack(String transport, String scenario)
            throws Exception {
        if (transport.equals("epoll")) {
            NativeFeatures.assumeEpoll();
        } else if (transport.equals("io_uring")) {
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
                transport, scenario));
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
        String output = out.get(10, TimeUnit.SECONDS);
        System.out.print(output.lines().filter(l -> !l.startsWith("WARNING")).map(l -> transport + ", " + l + "\n")
                .reduce("", String::concat));
        assertEquals(0, child.exitValue(), output);
    }
}
