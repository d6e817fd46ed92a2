/* ARGS: -q */
/* quantize() with string keys: power-of-two buckets (-3 goes to -2, 1500
 * to 1024), one zero row around the data, bars scaled to the key's total,
 * histograms sorted by their weighted sum. */
BEGIN
{
	@["small"] = quantize(1);
	@["small"] = quantize(1);
	@["small"] = quantize(2);
	@["small"] = quantize(3);
	@["big"] = quantize(1024);
	@["big"] = quantize(1500);
	@["big"] = quantize(0);
	@["big"] = quantize(-3);
	exit(0);
}
