/**
 * Public-domain regression datasets with published results, for the tests of src/quant/stats only.
 *
 * - cars (R's datasets package, Ezekiel 1930): stopping distance (ft) against speed (mph), 50 cars.
 *   R's summary(lm(dist ~ speed)) prints intercept -17.5791 (se 6.7584), speed 3.9324 (se 0.4155),
 *   R² 0.6511, F 89.57 on 1 and 48 DF; the full-precision values below were recomputed in exact
 *   rational arithmetic (normal equations over fractions, then mpmath at 40 digits).
 * - Longley (1967), as NIST StRD publishes it (Longley.dat, "higher difficulty": the regressors are
 *   nearly collinear: the normal equations in double precision keep about 8 digits of 15). Certified
 *   values to 15 significant digits; our exact recomputation agrees with all of them.
 * - NIST StRD NoInt1: a line through the origin, certified values for the no-intercept case.
 */

export const CARS = {
  speed: [
    4, 4, 7, 7, 8, 9, 10, 10, 10, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 16, 16,
    17, 17, 17, 18, 18, 18, 18, 19, 19, 19, 20, 20, 20, 20, 20, 22, 23, 24, 24, 24, 24, 25,
  ],
  dist: [
    2, 10, 4, 22, 16, 10, 18, 26, 34, 17, 28, 14, 20, 24, 28, 26, 34, 34, 46, 26, 36, 60, 80, 20, 26, 54, 32,
    40, 32, 40, 50, 42, 56, 76, 84, 36, 46, 68, 32, 48, 52, 56, 64, 66, 54, 70, 92, 93, 120, 85,
  ],
  /** [estimate, standard error, t, two-sided p] for intercept and speed. */
  coefficients: [
    [-17.579094890510948, 6.758440169379236, -2.6010580030222554, 0.01231881615380881],
    [3.9324087591240877, 0.4155127766571223, 9.46398999029837, 1.4898364962950851e-12],
  ],
  rSquared: 0.6510793807582509,
  adjustedRSquared: 0.6438102011907144,
  fStatistic: 89.56710653646773,
  fPValue: 1.4898364962950851e-12,
  residualStdError: 15.379586748819907,
} as const;

export const LONGLEY = {
  /** y: total employment; x1..x6: GNP deflator, GNP, unemployed, armed forces, population, year. */
  y: [
    60323, 61122, 60171, 61187, 63221, 63639, 64989, 63761, 66019, 67857, 68169, 66513, 68655, 69564, 69331,
    70551,
  ],
  x: [
    [83, 88.5, 88.2, 89.5, 96.2, 98.1, 99, 100, 101.2, 104.6, 108.4, 110.8, 112.6, 114.2, 115.7, 116.9],
    [
      234289, 259426, 258054, 284599, 328975, 346999, 365385, 363112, 397469, 419180, 442769, 444546, 482704,
      502601, 518173, 554894,
    ],
    [2356, 2325, 3682, 3351, 2099, 1932, 1870, 3578, 2904, 2822, 2936, 4681, 3813, 3931, 4806, 4007],
    [1590, 1456, 1616, 1650, 3099, 3594, 3547, 3350, 3048, 2857, 2798, 2637, 2552, 2514, 2572, 2827],
    [
      107608, 108632, 109773, 110929, 112075, 113270, 115094, 116219, 117388, 118734, 120445, 121950, 123366,
      125368, 127852, 130081,
    ],
    [1947, 1948, 1949, 1950, 1951, 1952, 1953, 1954, 1955, 1956, 1957, 1958, 1959, 1960, 1961, 1962],
  ],
  /** NIST certified [estimate, standard deviation of estimate], B0..B6. */
  certified: [
    [-3482258.63459582, 890420.383607373],
    [15.0618722713733, 84.9149257747669],
    [-0.35819179292591e-1, 0.0334910077722432],
    [-2.02022980381683, 0.488399681651699],
    [-1.03322686717359, 0.214274163161675],
    [-0.0511041056535807, 0.22607320006937],
    [1829.15146461355, 455.478499142212],
  ],
  residualStdError: 304.854073561965,
  rSquared: 0.995479004577296,
  fStatistic: 330.285339234588,
} as const;

export const NOINT1 = {
  x: [60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70],
  y: [130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140],
  estimate: 2.07438016528926,
  standardError: 0.0165289256198347,
  residualStdError: 3.56753034006338,
  /** Uncentred, as for every model without an intercept. */
  rSquared: 0.999365492298663,
  fStatistic: 15750.25,
} as const;
