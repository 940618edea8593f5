package dev.wirespeed.lab.experiments.readall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReadAllExperimentTest {
    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);

    @Test
    void pairedRatiosCompareTheBlocksOfOneRunNotTheMediansOfAll() {
        // The machine slowed down 4x in the last run: medians of each would say 1.0x, the pairs say 2x.
        assertEquals(new Stats(2.0, 2.0, 2.0, 3),
                ReadAllExperiment.pairedRatios(List.of(200.0, 220.0, 50.0), List.of(100.0, 110.0, 25.0)));
        assertEquals(new Stats(1.0, 0.5, 3.0, 3),
                ReadAllExperiment.pairedRatios(List.of(3.0, 1.0, 2.0), List.of(1.0, 2.0, 2.0)));
    }

    @Test
    void theThreadsFormulasGiveEveryFigureOfItsTable() {
        // JDK-8193832's table for B = 8192: L, N_old, N_new.
        long[][] table = {{8191, 16383, 16383}, {8192, 8192, 16384}, {8193, 32769, 24578}, {16383, 40959, 40958},
            {16384, 24576, 40960}, {16385, 73729, 40962}, {32767, 90111, 73726}, {32768, 57344, 73728},
            {32769, 155649, 73730}, {65535, 188415, 139262}, {65536, 122880, 139264}, {65537, 319489, 139266},
            {131071, 385023, 270334}, {131072, 253952, 270336}, {131073, 647169, 270338}, {262143, 778239, 532478},
            {262144, 516096, 532480}, {262145, 1302529, 532482}};
        assertEquals(ReadAllExperiment.THREAD_LENGTHS.length, table.length);
        for (long[] row : table) {
            assertEquals(row[1], ReadAllExperiment.nOld(row[0]), "N_old at " + row[0]);
            assertEquals(row[2], ReadAllExperiment.nNew(row[0]), "N_new at " + row[0]);
        }
    }

    /** Three lengths where ours allocates its result and reads 1.3x; one length may be made worse. */
    private static Results<Integer, ReadAllCell> results(int badLength, long oursFileBytes, double fileRatio) {
        Results<Integer, ReadAllCell> results = new Results<>();
        for (int length : new int[] {8191, 32768, 1 << 20}) {
            Map<Reader, Long> bytes = new EnumMap<>(Map.of(Reader.JDK_STREAM, 3L * length, Reader.OURS_STREAM,
                    length + 40L, Reader.JDK_FILE, length + 500L, Reader.OURS_FILE,
                    length == badLength ? oursFileBytes : length + 100L));
            Map<Reader, Stats> calls = new EnumMap<>(Reader.class);
            for (Reader reader : Reader.values()) {
                calls.put(reader, new Stats(1000, 900, 1100, 9));
            }
            double file = length == badLength ? fileRatio : 1.3;
            Map<Medium, Stats> paired = new EnumMap<>(Map.of(Medium.STREAM, new Stats(1.3, 1.2, 1.4, 9),
                    Medium.FILE, new Stats(file, file - 0.1, file + 0.1, 9)));
            results.put(length, new ReadAllCell(Placement.inProcess(1), bytes, calls, paired));
        }
        return results;
    }

    private static Finding finding(List<Finding> findings, String start) {
        return findings.stream().filter(f -> f.claim().startsWith(start)).findFirst().orElseThrow(() ->
                new AssertionError("no finding starting '" + start + "' in " + findings));
    }

    @Test
    void theSpeedTargetFailsWhenOursIsSlowerAtOneLength() {
        ReadAllExperiment experiment = new ReadAllExperiment();
        assertTrue(finding(experiment.findings(results(0, 0, 1), LAB), "wirespeed's readAll is at least as fast as JDK 25's "
                + "at every length (file").holds());
        Finding slower = finding(experiment.findings(results(32768, 32768 + 100, 0.90), LAB),
                "wirespeed's readAll is at least as fast as JDK 25's at every length (file");
        assertFalse(slower.holds(), slower.figures());
        assertEquals("32,768 bytes", slower.failures().get(0).where());
        Finding level = finding(experiment.findings(results(32768, 32768 + 100, 0.96), LAB),
                "wirespeed's readAll is at least as fast as JDK 25's at every length (file");
        assertTrue(level.holds(), "0.96x is within the stated 5%: " + level.figures());
    }

    @Test
    void theAllocationTargetsFailWhenOursAllocatesMoreAtOneLength() {
        ReadAllExperiment experiment = new ReadAllExperiment();
        List<Finding> more = experiment.findings(results(8191, 8191 + 501, 1.3), LAB);
        assertFalse(finding(more, "wirespeed's readAll allocates no more than JDK 25's at every length (file)").holds());
        assertTrue(finding(more, "wirespeed's readAll allocates no more than JDK 25's at every length (stream)").holds());
        assertTrue(finding(more, "reading a file of known size allocates at most length + 16 KiB").holds());
        List<Finding> over = experiment.findings(results(8191, 8191 + 16 * 1024 + 1, 1.3), LAB);
        assertFalse(finding(over, "reading a file of known size allocates at most length + 16 KiB").holds());
    }

    /** {@return the findings on one length, 32,768 bytes, as the report lists them: verdict and title, then figures} */
    private static String verdicts(long oursStream, long oursFile, Stats streamSpeed, Stats fileSpeed) {
        int length = 32_768;
        Map<Reader, Long> bytes = new EnumMap<>(Map.of(Reader.JDK_STREAM, 3L * length, Reader.OURS_STREAM, oursStream,
                Reader.JDK_FILE, length + 500L, Reader.OURS_FILE, oursFile));
        Map<Reader, Stats> calls = new EnumMap<>(Reader.class);
        for (Reader reader : Reader.values()) {
            calls.put(reader, new Stats(1000, 900, 1100, 9));
        }
        Results<Integer, ReadAllCell> results = new Results<>();
        results.put(length, new ReadAllCell(Placement.inProcess(1), bytes, calls,
                new EnumMap<>(Map.of(Medium.STREAM, streamSpeed, Medium.FILE, fileSpeed))));
        return new ReadAllExperiment().findings(results, LAB).stream()
                .map(f -> (f.holds() ? "holds" : "DOES NOT HOLD") + ": " + f.title() + "\n  " + f.figures())
                .collect(java.util.stream.Collectors.joining("\n"));
    }

    @Test
    void everyReadAllTargetHoldsWhereOursAllocatesLessAndReadsFaster() {
        assertEquals("""
                holds: target: wirespeed's readAll allocates no more than JDK 25's at every length (stream) (<= 1x)
                  32,768 bytes: wirespeed ReadAll (stream) 32,808.0 bytes / JDK readAllBytes (stream) 98,304.0 bytes \
                = 0.33x
                holds: target: wirespeed's readAll is at least as fast as JDK 25's at every length (stream; the \
                median of paired blocks) (>= 1x within 5% (from 0.95x))
                  32,768 bytes: ours / JDK, paired blocks 1.30x [1.20-1.40] / parity 1.00x = 1.30x
                holds: target: wirespeed's readAll allocates no more than JDK 25's at every length (file) (<= 1x)
                  32,768 bytes: wirespeed ReadAll (file) 32,868.0 bytes / JDK Files.readAllBytes (file) 33,268.0 \
                bytes = 0.99x
                holds: target: wirespeed's readAll is at least as fast as JDK 25's at every length (file; the median \
                of paired blocks) (>= 1x within 5% (from 0.95x))
                  32,768 bytes: ours / JDK, paired blocks 0.96x [0.90-1.10] / parity 1.00x = 0.96x
                holds: target: reading a file of known size allocates at most length + 16 KiB (<= 1x)
                  32,768 bytes: wirespeed ReadAll (file) 32,868.0 bytes / length + 16 KiB 49,152.0 bytes = 0.67x""",
                verdicts(32_808, 32_868, new Stats(1.3, 1.2, 1.4, 9), new Stats(0.96, 0.9, 1.1, 9)));
    }

    @Test
    void everyReadAllTargetFailsWhereOursAllocatesAByteMoreOrReadsSlower() {
        assertEquals("""
                DOES NOT HOLD: target: wirespeed's readAll allocates no more than JDK 25's at every length (stream) \
                (<= 1x)
                  32,768 bytes: wirespeed ReadAll (stream) 98,305.0 bytes / JDK readAllBytes (stream) 98,304.0 bytes \
                = 1.00x
                DOES NOT HOLD: target: wirespeed's readAll is at least as fast as JDK 25's at every length (stream; \
                the median of paired blocks) (>= 1x within 5% (from 0.95x))
                  32,768 bytes: ours / JDK, paired blocks 0.90x [0.80-1.00] / parity 1.00x = 0.90x
                DOES NOT HOLD: target: wirespeed's readAll allocates no more than JDK 25's at every length (file) \
                (<= 1x)
                  32,768 bytes: wirespeed ReadAll (file) 50,000.0 bytes / JDK Files.readAllBytes (file) 33,268.0 \
                bytes = 1.50x
                DOES NOT HOLD: target: wirespeed's readAll is at least as fast as JDK 25's at every length (file; \
                the median of paired blocks) (>= 1x within 5% (from 0.95x))
                  32,768 bytes: ours / JDK, paired blocks 0.94x [0.84-1.04] / parity 1.00x = 0.94x
                DOES NOT HOLD: target: reading a file of known size allocates at most length + 16 KiB (<= 1x)
                  32,768 bytes: wirespeed ReadAll (file) 50,000.0 bytes / length + 16 KiB 49,152.0 bytes = 1.02x""",
                verdicts(98_305, 50_000, new Stats(0.9, 0.8, 1.0, 9), new Stats(0.94, 0.84, 1.04, 9)));
    }

    @Test
    void theTablesGiveBytesAllocatedBesideTheThreadsFormulasThenCallsASecondWithTheirPairedRatios() {
        List<Table> tables = new ReadAllExperiment().tables(results(0, 0, 1), LAB);
        assertEquals(2, tables.size());
        Table memory = tables.get(0);
        assertEquals("readall: bytes allocated per call (B = 8192 in the thread's formulas), one core (cpu1)",
                memory.title());
        assertEquals(List.of("length", "N_old", "N_new", "JDK stream", "ours stream", "JDK file", "ours file"),
                memory.header());
        assertEquals(List.of(
                List.of("8,191", "16,383", "16,383", "24,573", "8,231", "8,691", "8,291"),
                List.of("32,768", "57,344", "73,728", "98,304", "32,808", "33,268", "32,868"),
                List.of("1,048,576", "2,088,960", "2,105,344", "3,145,728", "1,048,616", "1,049,076", "1,048,676")),
                memory.rows());
        Table speed = tables.get(1);
        assertEquals("readall: calls per second, median of 9 interleaved blocks of ~20 ms; ours / JDK: median of the "
                + "blocks' paired ratios (min-max)", speed.title());
        assertEquals(List.of("length", "JDK stream", "ours stream", "ours / JDK", "JDK file", "ours file", "ours / JDK"),
                speed.header());
        assertEquals(List.of("8,191", "1,000", "1,000", "1.30x (1.20-1.40)", "1,000", "1,000", "1.30x (1.20-1.40)"),
                speed.rows().get(0));
        assertEquals(1, speed.notes().size());
        assertTrue(speed.notes().get(0).startsWith("ours file: ReadAll.readAll(Path) read with "), speed.notes().get(0));
    }
}
