package dev.wirespeed.lab.experiment;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code iperf3} over TCP loopback, pinned like the other cases: a ceiling in MB/s (10^6 bytes). */
final class Iperf {
    private static final Pattern RECEIVED = Pattern.compile(
            "\"sum_received\"\\s*:\\s*\\{[^}]*\"bits_per_second\"\\s*:\\s*([\\d.eE+]+)");

    private Iperf() {
    }

    /** {@return MB/s, then NaN for msg/s and CPU ns per message, which iperf3 does not measure} */
    static double[] run(Placement placement, int seconds) throws IOException, InterruptedException {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Process server = new ProcessBuilder(StreamExperiment.pinned(placement.serverCpu(),
                List.of("iperf3", "-s", "-1", "-p", String.valueOf(port)))).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String out = "";
            for (int attempt = 0; attempt < 20; attempt++) {
                Process client = new ProcessBuilder(StreamExperiment.pinned(placement.clientCpu(),
                        List.of("iperf3", "-c", "127.0.0.1", "-p", String.valueOf(port), "-t", String.valueOf(seconds),
                                "-J"))).redirectErrorStream(true).start();
                out = StreamExperiment.drain(client.getInputStream());
                client.waitFor(seconds + 30L, TimeUnit.SECONDS);
                Matcher matcher = RECEIVED.matcher(out);
                if (client.exitValue() == 0 && matcher.find()) {
                    return new double[] {Double.parseDouble(matcher.group(1)) / 8e6, Double.NaN, Double.NaN};
                }
                Thread.sleep(100); // the server may not be listening yet
            }
            throw new IOException("iperf3 failed: " + out);
        } finally {
            server.destroyForcibly().waitFor();
        }
    }
}
