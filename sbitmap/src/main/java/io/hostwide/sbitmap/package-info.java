/**
 * The scalable bitmap allocator and its wait queues, after Linux's
 * {@code lib/sbitmap.c} (digest §1): tags, budgets and ctx maps for the layers
 * above.
 *
 * <ul>
 *   <li>{@link io.hostwide.sbitmap.Sbitmap}: the word-sharded bitmap alone
 *       (deferred clear, hints, shallow depth, batch get/put, direct bit ops).</li>
 *   <li>{@link io.hostwide.sbitmap.SbitmapQueue}: the allocator with waiting;
 *       {@link io.hostwide.sbitmap.ShardedSbitmapQueue} implements it, tested
 *       against a synchronized-bitset reference in test scope.</li>
 *   <li>{@link io.hostwide.sbitmap.SbitmapMath}: the sizing rules (default shift,
 *       wake batch, shallow split, hints).</li>
 * </ul>
 */
package io.hostwide.sbitmap;
