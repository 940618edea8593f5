package dev.wirespeed.lab.env;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wirespeed.lab.result.Placement;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code iperf3} over TCP loopback, pinned like the other cases: a ceiling in MB/s (10^6 bytes). */
public final class Iperf {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Iperf() {
    }

    /**
     * {@return the received MB/s of one {@code iperf3 -J} run}
     *
     * @param placement where server and client run
     * @param seconds how long it sends
     * @throws IOException if iperf3 fails, naming what it printed
     * @throws InterruptedException if interrupted while waiting
     */
    public static double mbPerSec(Placement placement, int seconds) throws IOException, InterruptedException {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Process server = new ProcessBuilder(Children.pinned(placement.serverCpu(),
                List.of("iperf3", "-s", "-1", "-p", String.valueOf(port)))).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String out = "";
            for (int attempt = 0; attempt < 20; attempt++) {
                Process client = new ProcessBuilder(Children.pinned(placement.clientCpu(),
                        List.of("iperf3", "-c", "127.0.0.1", "-p", String.valueOf(port), "-t", String.valueOf(seconds),
                                "-J"))).redirectErrorStream(true).start();
                out = Children.drain(client.getInputStream());
                client.waitFor(seconds + 30L, TimeUnit.SECONDS);
                if (client.exitValue() == 0) {
                    return receivedMbPerSec(out);
                }
                Thread.sleep(100); // the server may not be listening yet
            }
            throw new IOException("iperf3 failed: " + out);
        } finally {
            Children.stop(server);
        }
    }

    /**
     * {@return the received MB/s of an {@code iperf3 -J} report}
     *
     * @param json what {@code iperf3 -J} printed
     * @throws IOException if it is not JSON or lacks {@code end.sum_received.bits_per_second}
     */
    static double receivedMbPerSec(String json) throws IOException {
        JsonNode bits = JSON.readTree(json).path("end").path("sum_received").path("bits_per_second");
        if (!bits.isNumber()) {
            throw new IOException("iperf3 -J printed no end.sum_received.bits_per_second: " + json);
        }
        return bits.asDouble() / 8e6;
    }
}
