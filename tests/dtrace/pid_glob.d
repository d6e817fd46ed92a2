/* ARGS: -q */
/* CMD: ufixture calls 4 */
/* Globs over functions and names: uf_outer -> uf_middle -> uf_leaf each
 * run once per round; entry and return pair up per thread, so the depth
 * goes 1, 2, 3 and back. */
pid$target:a.out:uf_[lmo]*:entry
{
	self->depth++;
	@entries[probefunc] = count();
	@deepest = max(self->depth);
}

pid$target:a.out:uf_[lmo]*:return
{
	self->depth--;
	@returns[probefunc] = count();
}

pid$target:a.out:uf_leaf:entry
/pid == $target && self->depth == 3/
{
	named++;
}

END
{
	printf("uf_leaf at depth 3 in the target: %d\n", named);
}
