package dev.wirespeed.lab.result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class ChildReportsTest {
    @Test
    void everyKindOfReportReadsBackAsWritten() throws IOException {
        ChildReport round = new ChildReport.Round(2, 5_000_000, 540_000_000, 120, 41_666_666, 4500.25, 20.5);
        ChildReport summary = new ChildReport.Summary(10_000_000, 1_080_000_000, true);
        ChildReport latency = new ChildReport.Latency(6.1, 6.4, 7.7, 42.0, 120.5, 206.0, Unit.MICROSECONDS);
        ChildReport handshakes = new ChildReport.Handshakes(2, 64, 3_000, 2.0, 1_500.0, 0.98, 40_000.0, 61_000.5,
                90_000.0, Unit.MICROSECONDS);
        ChildReport wakes = new ChildReport.Wakes(5, 1000, 0.0004, 31.5, 48.25, Unit.MICROSECONDS);
        for (ChildReport report : new ChildReport[] {round, summary, latency, handshakes, wakes}) {
            assertEquals(report, ChildReports.read(ChildReports.line(report)));
        }
        assertEquals("{\"round\":2,\"messages\":5000000,\"bytes\":540000000,\"ms\":120,\"msgPerSec\":41666666,"
                + "\"mbPerSec\":4500.25,\"cpuNsPerMsg\":20.5}", ChildReports.line(round));
        assertEquals("{\"summary\":true,\"frames\":10000000,\"bytes\":1080000000,\"verified\":true}",
                ChildReports.line(summary));
        assertEquals("{\"p50\":6.1,\"p90\":6.4,\"p99\":7.7,\"p999\":42.0,\"p9999\":120.5,\"max\":206.0,\"unit\":\"us\"}",
                ChildReports.line(latency));
        assertEquals("{\"round\":2,\"connections\":64,\"handshakes\":3000,\"seconds\":2.0,\"handshakesPerSecond\":1500.0,"
                + "\"cpuShare\":0.98,\"p50\":40000.0,\"p99\":61000.5,\"max\":90000.0,\"unit\":\"us\"}",
                ChildReports.line(handshakes));
        assertEquals("{\"wakes\":5,\"idleMs\":1000,\"cpuShare\":4.0E-4,\"p50\":31.5,\"max\":48.25,\"unit\":\"us\"}",
                ChildReports.line(wakes));
    }

    @Test
    void aRoundWithoutCpuTimeIsReadNotDropped() throws IOException {
        // A partial round closed on another thread has no CPU time: the line still counts.
        ChildReport.Round round = (ChildReport.Round) ChildReports.read("{\"round\":3,\"messages\":7,\"bytes\":756,\"ms\":0,"
                + "\"msgPerSec\":70000,\"mbPerSec\":7.6,\"cpuNsPerMsg\":null}");
        assertEquals(null, round.cpuNsPerMsg());
        assertEquals(3, round.round());
    }

    @Test
    void theCProgramsLinesAreReadWithTheSameRecords() throws IOException {
        // As ceiling.c and pingpong.c print them with printf.
        assertEquals(new ChildReport.Round(1, 5000000, 540000000, 101, 49504950, 5346.5, 20.1),
                ChildReports.read("{\"round\":1,\"messages\":5000000,\"bytes\":540000000,\"ms\":101,"
                        + "\"msgPerSec\":49504950,\"mbPerSec\":5346.5,\"cpuNsPerMsg\":20.1}"));
        assertEquals(new ChildReport.Summary(5000000, 540000000, false),
                ChildReports.read("{\"summary\":true,\"frames\":5000000,\"bytes\":540000000,\"verified\":false}"));
        assertEquals(new ChildReport.Latency(5.8, 6.2, 7.0, 36.0, 80.0, 116.0, Unit.MICROSECONDS),
                ChildReports.read("{\"p50\":5.800,\"p90\":6.200,\"p99\":7.000,\"p999\":36.000,\"p9999\":80.000,"
                        + "\"max\":116.000,\"unit\":\"us\"}"));
    }

    @Test
    void refusesALineThatIsNotAReportNamingTheLine() {
        for (String line : new String[] {
            "Time for 10 msg: 0; speed: 1 msg/s; 0.0 MB/s",
            "{\"round\":1,\"messages\":5,\"bytes\":540,\"ms\":1,\"msgPerSec\":5,\"mbPerSec\":0.5}",
            "{\"round\":1,\"messages\":5,\"bytes\":540,\"ms\":1,\"msgPerSec\":5,\"mbPerSec\":0.5,\"cpuNsPerMsg\":1,\"x\":2}",
            "{\"summary\":true,\"frames\":1,\"bytes\":108,\"verified\":false} trailing",
            "{\"summary\":false,\"frames\":1,\"bytes\":108,\"verified\":false}",
            "{\"p50\":9,\"p90\":6,\"p99\":7,\"p999\":8,\"p9999\":9,\"max\":10,\"unit\":\"us\"}",
            "{\"p50\":1,\"p90\":2,\"p99\":3,\"p999\":4,\"p9999\":4,\"max\":5,\"unit\":\"ms\"}",
            "{\"p50\":1,\"p90\":2,\"p99\":3,\"p999\":4,\"max\":5,\"unit\":\"us\"}",
            "{\"round\":\"one\",\"messages\":5,\"bytes\":540,\"ms\":1,\"msgPerSec\":5,\"mbPerSec\":0.5,\"cpuNsPerMsg\":1}",
            "{\"round\":1,\"connections\":64,\"handshakes\":0,\"seconds\":1.0,\"handshakesPerSecond\":1.0,"
                    + "\"cpuShare\":1.0,\"p50\":1,\"p99\":2,\"max\":3,\"unit\":\"us\"}",
        }) {
            IOException e = assertThrows(IOException.class, () -> ChildReports.read(line), line);
            assertTrue(e.getMessage().startsWith("not a child report line: '" + line + "': "), e.getMessage());
        }
    }

    @Test
    void percentilesOutOfOrderNameEveryFigure() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ChildReport.Latency(9, 6, 7, 8, 9, 10, Unit.MICROSECONDS));
        assertEquals("percentiles out of order or not in us: p50=9.0 p90=6.0 p99=7.0 p999=8.0 p9999=9.0 max=10.0 unit=us",
                e.getMessage());
    }
}
