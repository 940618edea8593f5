package dev.wirespeed.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReadAllExperimentTest {
    @Test
    void pairedRatiosCompareTheBlocksOfOneRunNotTheMediansOfAll() {
        // The machine slowed down 4x in the last run: medians of each would say 1.0x, the pairs say 2x.
        ReadAllExperiment.Pairs steady = ReadAllExperiment.pairedRatios(List.of(200.0, 220.0, 50.0), List.of(100.0, 110.0, 25.0));
        assertEquals(new Stats(2.0, 2.0, 2.0, 3), steady.ratio());
        assertEquals(3, steady.faster());
        ReadAllExperiment.Pairs spread = ReadAllExperiment.pairedRatios(List.of(3.0, 1.0, 2.0), List.of(1.0, 2.0, 2.0));
        assertEquals(new Stats(1.0, 0.5, 3.0, 3), spread.ratio());
        assertEquals(2, spread.faster(), "a tie counts for ours: at least as fast");
    }

    @Test
    void theRunsShowOursSlowerOnlyWhenACoinWouldRarelyFavourItSoLittle() {
        assertTrue(pairs(9, 0).showsSlower(1), "0 of 9: p = 0.002");
        assertTrue(pairs(9, 1).showsSlower(1), "1 of 9: p = 0.020");
        assertFalse(pairs(9, 2).showsSlower(1), "2 of 9: p = 0.090");
        assertFalse(pairs(3, 0).showsSlower(1), "0 of 3: p = 0.125, the quick run can never tell");
        assertTrue(pairs(15, 3).showsSlower(1), "3 of 15: p = 0.018");
        assertFalse(pairs(15, 4).showsSlower(1), "4 of 15: p = 0.059");
        // Over the 19 lengths of a default run: 5% / 19 = 0.0026 per length.
        assertTrue(pairs(9, 0).showsSlower(19), "0 of 9: p = 0.002");
        assertFalse(pairs(9, 1).showsSlower(19), "1 of 9: p = 0.020, a false alarm somewhere in 19 lengths a third of the time");
        assertTrue(pairs(15, 1).showsSlower(19), "1 of 15: p = 0.0005");
        assertFalse(pairs(15, 2).showsSlower(19), "2 of 15: p = 0.0037");
    }

    private static ReadAllExperiment.Pairs pairs(int runs, int faster) {
        return new ReadAllExperiment.Pairs(new Stats(0.9, 0.8, 1.1, runs), faster);
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
}
