package dev.wirespeed.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two "hosts": network namespaces joined by a veth pair, the server bound to its real address in one,
 * the client and ping connecting to it from the other. Needs root and {@code ip}; skipped with a
 * message saying which is missing.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AcrossHostsTest {
    private static final String SERVER_NS = "wirespeed-test-a-" + ProcessHandle.current().pid();
    private static final String CLIENT_NS = "wirespeed-test-b-" + ProcessHandle.current().pid();
    private static final String SERVER_IP = "10.231.7.1";
    private static final String CLIENT_IP = "10.231.7.2";
    private static String unavailable;
    private final List<Process> started = new ArrayList<>();

    @BeforeAll
    static void makeTwoHosts() throws Exception {
        if (!new java.io.File("/usr/sbin/ip").canExecute() && !new java.io.File("/sbin/ip").canExecute()
                && !new java.io.File("/usr/bin/ip").canExecute()) {
            unavailable = "no 'ip' command (install iproute2)";
            return;
        }
        String veth = "wsv" + (ProcessHandle.current().pid() % 100000);
        List<List<String>> steps = List.of(
                List.of("ip", "netns", "add", SERVER_NS),
                List.of("ip", "netns", "add", CLIENT_NS),
                List.of("ip", "link", "add", veth + "a", "type", "veth", "peer", "name", veth + "b"),
                List.of("ip", "link", "set", veth + "a", "netns", SERVER_NS),
                List.of("ip", "link", "set", veth + "b", "netns", CLIENT_NS),
                List.of("ip", "-n", SERVER_NS, "addr", "add", SERVER_IP + "/24", "dev", veth + "a"),
                List.of("ip", "-n", CLIENT_NS, "addr", "add", CLIENT_IP + "/24", "dev", veth + "b"),
                List.of("ip", "-n", SERVER_NS, "link", "set", veth + "a", "up"),
                List.of("ip", "-n", CLIENT_NS, "link", "set", veth + "b", "up"),
                List.of("ip", "-n", SERVER_NS, "link", "set", "lo", "up"),
                List.of("ip", "-n", CLIENT_NS, "link", "set", "lo", "up"));
        for (List<String> step : steps) {
            Process process = new ProcessBuilder(step).redirectErrorStream(true).start();
            String out = Processes.readAll(process.getInputStream());
            if (process.waitFor() != 0) {
                unavailable = "network namespaces cannot be made here (" + String.join(" ", step) + ": " + out.strip()
                        + "); run the tests as root on Linux to include this one";
                removeHosts();
                return;
            }
        }
    }

    @AfterAll
    static void removeHosts() throws Exception {
        for (String ns : List.of(SERVER_NS, CLIENT_NS)) {
            new ProcessBuilder("ip", "netns", "del", ns).redirectErrorStream(true).start().waitFor();
        }
    }

    @AfterEach
    void stopProcesses() {
        started.forEach(Process::destroyForcibly);
    }

    private Process inNamespace(String ns, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        command.addAll(Processes.command(args).command());
        Process process = new ProcessBuilder(command).start();
        started.add(process);
        return process;
    }

    private record Result(int code, String out, String err) {
    }

    private Result run(Process process) throws Exception {
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> Processes.readAll(process.getErrorStream()));
        String out = Processes.readAll(process.getInputStream());
        assertTrue(process.waitFor(2, TimeUnit.MINUTES), "hung");
        return new Result(process.exitValue(), out, err.get());
    }

    @Test
    void aVerifiedStreamAndRoundTripsCrossAVethPairBetweenNamespaces() throws Exception {
        Environment.assume(Feature.NETWORK_NAMESPACES, unavailable == null, () -> unavailable);
        Process server = inNamespace(SERVER_NS, "server", "--transport", "tcp", "--bind", SERVER_IP, "--port", "0",
                "--count", "300000");
        int port = Processes.listeningPort(server);
        for (String strategy : List.of("wirespeed", "native-spin", "buffered")) {
            Result client = run(inNamespace(CLIENT_NS, "client", "--transport", "tcp", "--host", SERVER_IP, "--port",
                    String.valueOf(port), "--strategy", strategy, "--verify", "--json", "--messages", "100000"));
            assertEquals(ExitCode.OK, client.code(), strategy + ": " + client.err());
            assertTrue(client.out().endsWith("{\"summary\":true,\"frames\":300000,\"bytes\":32400000,\"verified\":true}\n"),
                    strategy + ": " + client.out());
        }
        Process echo = inNamespace(SERVER_NS, "echo", "--transport", "tcp", "--bind", SERVER_IP, "--port", "0",
                "--impl", "native");
        int echoPort = Processes.listeningPort(echo);
        Result ping = run(inNamespace(CLIENT_NS, "ping", "--transport", "tcp", "--host", SERVER_IP, "--port",
                String.valueOf(echoPort), "--impl", "native", "--count", "2000", "--warmup", "200", "--json"));
        assertEquals(ExitCode.OK, ping.code(), ping.err());
        assertTrue(ping.out().matches("\\{\"p50\":[0-9.]+,\"p90\":[0-9.]+,\"p99\":[0-9.]+,\"p999\":[0-9.]+,\"p9999\":[0-9.]+,\"max\":[0-9.]+,"
                + "\"unit\":\"us\"}\n"), ping.out());
        // The server is bound to its veth address only: nothing listens on the namespace's loopback.
        Result refused = run(inNamespace(SERVER_NS, "client", "--transport", "tcp", "--host", "127.0.0.1", "--port",
                String.valueOf(port), "--strategy", "wirespeed"));
        assertEquals(ExitCode.IO_FAILURE, refused.code(), refused.err());
        assertTrue(refused.err().contains("Connection refused"), refused.err());
    }
}
