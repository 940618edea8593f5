package dev.wirespeed.lab.experiment;

/**
 * A claim of an article, checked on this run.
 *
 * @param finding the claim, in words
 * @param holds whether this run supports it
 * @param figures the figures behind the verdict, ours beside the article's
 */
public record Finding(String finding, boolean holds, String figures) {
}
