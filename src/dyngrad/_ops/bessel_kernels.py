"""Bessel-function kernels on whole NumPy arrays, as torch's CPU kernels compute them.

Sources: PyTorch's aten/src/ATen/native/Math.h, which derives them from the Cephes Math Library
(S. L. Moshier): ``calc_i0``/``calc_i0e``/``calc_i1``/``calc_i1e`` (Cephes i0.c, i1.c: Chebyshev
expansions on [0, 8] and on the inverted interval (8, inf)), ``bessel_j0_forward`` ...
``bessel_y1_forward`` (Cephes j0.c, j1.c: rational approximations for x <= 5 and Hankel's
asymptotic form beyond), ``modified_bessel_k0_forward`` ... (Cephes k0.c, k1.c),
``spherical_bessel_j0_forward`` (a Taylor series near 0, sin(x)/x beyond) and
``airy_ai_forward`` (Cephes airy.c: the Maclaurin series on (-2.09, 2.09), asymptotic
expansions beyond). The coefficients are those of Cephes as Math.h lists them; the code is
written for 1-D arrays: each formula is evaluated on the elements Math.h applies it to
(``piecewise``), and the iterative Airy series runs until every element has converged.

Note [Working precision]
torch evaluates these kernels in the tensor's own dtype: float32 tensors in float32 (with
shorter coefficient tables for i1/i1e), float16 upcast to float32 and rounded back. Its float32
results therefore carry float32 rounding, and overflow where the float32 intermediates do
(``special.i0`` of a float32 89.0 is inf although I0(89) = 1.9e37 fits a float32; ``i0(0)`` is
0.99999994). The kernels here take the working dtype from their argument (callers pass float32
or float64 arrays) and write every formula in Math.h's order of operations, with the fused
multiply-adds torch's build compiles and glibc's rounding of exp/log/sin/cos (cpu_rounding.py),
so they round and overflow where torch does: on wide grids the results are bitwise torch's for
99-100% of inputs and within a few ulps for the rest.
"""

from __future__ import annotations

import math

from .._backend import xp
from . import cpu_rounding as cr

# ----------------------------------------------------------------- Chebyshev series (Cephes chbevl)


def chbevl(y, coefficients):
    """sum_i c_i T_i(y/2) by Clenshaw's recurrence, the highest-order coefficient first (Cephes chbevl)."""
    b0 = xp.full_like(y, coefficients[0])
    b1 = xp.zeros_like(y)
    b2 = b1
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = cr.fms(y, b1, b2) + c  # Note [Fused multiply-add] in cpu_rounding.py
    return 0.5 * (b0 - b2)


def _horner(z, coefficients):
    """Horner's scheme from 0, as Math.h's loops ``p = p * z + C[i]`` (highest order first)."""
    p = xp.zeros_like(z)
    for c in coefficients:
        p = cr.fma(p, z, c)
    return p


def piecewise(x, *cases):
    """``fn(x[mask])`` into ``out[mask]`` for each (mask, fn); the masks partition the 1-D array ``x``.

    Math.h chooses a formula per element; evaluating each formula only where it is chosen costs
    one pass per element instead of one per formula (the formulas are long: 25-30 term series).
    """
    out = xp.empty_like(x)
    for mask, fn in cases:
        if mask.any():
            out[mask] = fn(x[mask])
    return out


def _constant(value):
    return lambda v: xp.full_like(v, value)


# exp(-x) I0(x) on [0, 8] and exp(-x) sqrt(x) I0(x) on (8, inf) (Cephes i0.c)
I0E_A = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16, 1.71539128555513303061e-15,
    -1.16853328779934516808e-14, 7.67618549860493561688e-14, -4.85644678311192946090e-13, 2.95505266312963983461e-12,
    -1.72682629144155570723e-11, 9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7, 1.11738753912010371815e-6,
    -4.41673835845875056359e-6, 1.64484480707288970893e-5, -5.75419501008210370398e-5, 1.88502885095841655729e-4,
    -5.76375574538582365885e-4, 1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2, 1.71620901522208775349e-1,
    -3.04682672343198398683e-1, 6.76795274409476084995e-1,
)
I0E_B = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17, 3.46122286769746109310e-17,
    -2.82762398051658348494e-16, -3.42548561967721913462e-16, 1.77256013305652638360e-15, 3.81168066935262242075e-15,
    -9.55484669882830764870e-15, -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11, -3.14991652796324136454e-11,
    1.18891471078464383424e-11, 4.94060238822496958910e-10, 3.39623202570838634515e-9, 2.26666899049817806459e-8,
    2.04891858946906374183e-7, 2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)
# exp(-x) I1(x) / x on [0, 8] and exp(-x) sqrt(x) I1(x) on (8, inf) (Cephes i1.c). For float32 Math.h keeps
# only the last 17 and 7 of them (calc_i1/calc_i1e); modified_bessel_i1 uses the full tables in every dtype.
I1E_A = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16, -1.10559694773538630805e-15,
    7.60068429473540693410e-15, -5.04218550472791168711e-14, 3.22379336594557470981e-13, -1.98397439776494371520e-12,
    1.17361862988909016308e-11, -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
    9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7, -8.56872026469545474066e-7,
    3.47025130813767847674e-6, -1.32731636560394358279e-5, 4.78156510755005422638e-5, -1.61760815825896745588e-4,
    5.12285956168575772895e-4, -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
    2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1, -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
)
I1E_B = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17, -3.20952592199342395980e-17,
    2.96262899764595013876e-16, 3.30820231092092828324e-16, -1.88035477551078244854e-15, -3.81440307243700780478e-15,
    1.04202769841288027642e-14, 4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11, 3.25260358301548823856e-11,
    -1.89749581235054123450e-11, -5.58974346219658380687e-10, -3.83538038596423702205e-9, -2.63146884688951950684e-8,
    -2.51223623787020892529e-7, -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)
_I1E_A_FLOAT32 = I1E_A[12:]
_I1E_B_FLOAT32 = I1E_B[18:]


def _i1_tables(x):
    """calc_i1/calc_i1e's coefficient tables for the working dtype of ``x``."""
    if x.dtype == xp.float32:
        return _I1E_A_FLOAT32, _I1E_B_FLOAT32
    return I1E_A, I1E_B


def _i0_near(ax):
    return cr.exp(ax) * chbevl(ax / 2.0 - 2.0, I0E_A)


def _i0_far(ax):
    return cr.exp(ax) * chbevl(32.0 / ax - 2.0, I0E_B) / xp.sqrt(ax)


def i0(x):
    """I0(x), the modified Bessel function of the first kind of order 0 (Math.h calc_i0, Cephes i0.c)."""
    ax = xp.abs(x)
    near = ax <= 8.0
    return piecewise(ax, (near, _i0_near), (~near, _i0_far))


def i0e(x):
    """exp(-|x|) I0(x) (Math.h calc_i0e, Cephes i0e)."""
    ax = xp.abs(x)
    near = ax <= 8.0
    return piecewise(
        ax,
        (near, lambda v: chbevl(v / 2.0 - 2.0, I0E_A)),
        (~near, lambda v: chbevl(32.0 / v - 2.0, I0E_B) / xp.sqrt(v)),
    )


def _odd(x, magnitude):
    """An odd function from its values ``magnitude`` at |x| (the sign of x < 0 applied; -0 and NaN kept)."""
    return xp.where(x < 0.0, -magnitude, magnitude)


def i1(x):
    """I1(x), odd in x (Math.h calc_i1, Cephes i1.c)."""
    a_table, b_table = _i1_tables(x)
    ax = xp.abs(x)
    near = ax <= 8.0
    magnitude = piecewise(
        ax,
        (near, lambda v: cr.exp(v) * v * chbevl(v / 2.0 - 2.0, a_table)),
        (~near, lambda v: cr.exp(v) * chbevl(32.0 / v - 2.0, b_table) / xp.sqrt(v)),
    )
    return _odd(x, magnitude)


def i1e(x):
    """exp(-|x|) I1(x) (Math.h calc_i1e, Cephes i1e)."""
    a_table, b_table = _i1_tables(x)
    ax = xp.abs(x)
    near = ax <= 8.0
    magnitude = piecewise(
        ax,
        (near, lambda v: chbevl(v / 2.0 - 2.0, a_table) * v),
        (~near, lambda v: chbevl(32.0 / v - 2.0, b_table) / xp.sqrt(v)),
    )
    return _odd(x, magnitude)


def modified_bessel_i0(x):
    """special.modified_bessel_i0: I0(x) (Math.h modified_bessel_i0_forward; the same expansion as calc_i0)."""
    return i0(x)


def modified_bessel_i1(x):
    """special.modified_bessel_i1: I1(x) (Math.h modified_bessel_i1_forward: full tables in every dtype)."""
    ax = xp.abs(x)
    near = ax <= 8.0
    magnitude = piecewise(
        ax,
        (near, lambda v: chbevl(v / 2.0 - 2.0, I1E_A) * v * cr.exp(v)),
        (~near, lambda v: cr.exp(v) * chbevl(32.0 / v - 2.0, I1E_B) / xp.sqrt(v)),
    )
    return _odd(x, magnitude)


# ----------------------------------------------------------------- K0, K1 (Cephes k0.c, k1.c)

# K0(x) + log(x/2) I0(x) on [0, 2] in T_i(x^2 - 2); exp(x) sqrt(x) K0(x) on (2, inf) in T_i(8/x - 2)
K0_A = (
    1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11, 1.90451637722020886025e-09,
    2.53479107902614945675e-07, 2.28621210311945178607e-05, 1.26461541144692592338e-03, 3.59799365153615016266e-02,
    3.44289899924628486886e-01, -5.35327393233902768720e-01,
)
K0_B = (
    5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17, -1.67823109680541210385e-16,
    5.51205597852431940784e-16, -1.84859337734377901440e-15, 6.34007647740507060557e-15, -2.22751332699166985548e-14,
    8.03289077536357521100e-14, -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
    1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10, -1.69753450938905987466e-09,
    8.57403401741422608519e-09, -4.66048989768794782956e-08, 2.76681363944501510342e-07, -1.83175552271911948767e-06,
    1.39498137188764993662e-05, -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
    2.44030308206595545468e+00,
)
# x (K1(x) - log(x/2) I1(x)) on [0, 2]; exp(x) sqrt(x) K1(x) on (2, inf)
K1_A = (
    -7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13, -1.41148839263352776110e-10,
    -2.21338763073472585583e-08, -2.43340614156596823496e-06, -1.73028895751305206302e-04, -6.97572385963986435018e-03,
    -1.22611180822657148235e-01, -3.53155960776544875667e-01, 1.52530022733894777053e+00,
)
K1_B = (
    -5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17, 1.83809354436663880070e-16,
    -6.05704724837331885336e-16, 2.03870316562433424052e-15, -7.01983709041831346144e-15, 2.47715442448130437068e-14,
    -8.97670518232499435011e-14, 3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
    -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10, 2.01504975519703286596e-09,
    -1.03457624656780970260e-08, 5.74108412545004946722e-08, -3.50196060308781257119e-07, 2.40648494783721712015e-06,
    -1.93619797416608296024e-05, 1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
    2.72062619048444266945e+00,
)


def _k_family(x, near, far):
    """inf at 0, NaN below 0, ``near`` on (0, 2], ``far`` beyond (NaN goes there and stays NaN)."""
    small = (x > 0.0) & (x <= 2.0)
    return piecewise(
        x,
        (x == 0.0, _constant(xp.inf)),
        (x < 0.0, _constant(xp.nan)),
        (small, near),
        (~(small | (x <= 0.0)), far),
    )


def _k0_near(x):
    """0.5 (a - p) - log(x / 2) I0(x): in double for float32 too (Math.h's ``0.5 * x`` is a double product)."""
    series = chbevl(cr.fms(x, x, 2.0), K0_A).astype(xp.float64)
    wide = x.astype(xp.float64)
    return (-cr.fms(cr.log(0.5 * wide), i0(x).astype(xp.float64), series)).astype(x.dtype)


def modified_bessel_k0(x):
    """K0(x), the modified Bessel function of the second kind of order 0 (Math.h modified_bessel_k0_forward).

    On (0, 2] Math.h evaluates ``log(0.5 * x) * I0(x)`` in double even for float32 (its ``0.5`` is a double
    literal); that term and the difference are computed in float64 here too, then rounded once.
    """
    return _k_family(x, _k0_near, lambda v: cr.exp(-v) * chbevl(8.0 / v - 2.0, K0_B) / xp.sqrt(v))


def _k1_near(x):
    return cr.fma(cr.log(0.5 * x), modified_bessel_i1(x), chbevl(cr.fms(x, x, 2.0), K1_A) / x)


def modified_bessel_k1(x):
    """K1(x) (Math.h modified_bessel_k1_forward, Cephes k1.c)."""
    return _k_family(x, _k1_near, lambda v: cr.exp(-v) * chbevl(8.0 / v - 2.0, K1_B) / xp.sqrt(v))


def scaled_modified_bessel_k0(x):
    """exp(x) K0(x) (Math.h scaled_modified_bessel_k0_forward, Cephes k0e)."""
    return _k_family(
        x,
        lambda v: -cr.fms(cr.log(0.5 * v), i0(v), chbevl(cr.fms(v, v, 2.0), K0_A)) * cr.exp(v),
        lambda v: chbevl(8.0 / v - 2.0, K0_B) / xp.sqrt(v),
    )


def scaled_modified_bessel_k1(x):
    """exp(x) K1(x) (Math.h scaled_modified_bessel_k1_forward, Cephes k1e)."""
    return _k_family(x, lambda v: _k1_near(v) * cr.exp(v), lambda v: chbevl(8.0 / v - 2.0, K1_B) / xp.sqrt(v))


# ----------------------------------------------------------------- J0, J1, Y0, Y1 (Cephes j0.c, j1.c)

# Hankel's asymptotic form: P and Q as rational functions of (5/x)^2
J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00, 5.44725003058768775090e+00,
         8.74716500199817011941e+00, 5.30324038235394892183e+00, 9.99999999999999997821e-01)
J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00, 5.47097740330417105182e+00,
         8.76190883237069594232e+00, 5.30605288235394617618e+00, 1.00000000000000000218e+00)
J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
         -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
         -5.14105326766599330220e+01, -6.05014350600728481186e+00)
J0_QQ = (6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03, 7.24046774195652478189e+03,
         5.93072701187316984827e+03, 2.06209331660327847417e+03, 2.42005740240291393179e+02)
# J0 on [0, 5]: (x^2 - r1^2)(x^2 - r2^2) RP(x^2) / RQ(x^2), r1, r2 its first two zeros
J0_RP = (-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14, 9.70862251047306323952e+15)
J0_RQ = (4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07, 1.11855537045356834862e+10,
         2.11277520115489217587e+12, 3.10518229857422583814e+14, 3.18121955943204943306e+16, 1.71086294081043136091e+18)
J0_R1_SQUARED = 5.78318596294678452118e+00
J0_R2_SQUARED = 3.04712623436620863991e+01
# Y0 on (0, 5]: YP(x^2) / YQ(x^2) + 2/pi log(x) J0(x)
Y0_YP = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09, -9.82136065717911466409e+11,
         8.75906394395366999549e+13, -3.46628303384729719441e+15, 4.42733268572569800351e+16, -1.84950800436986690637e+16)
Y0_YQ = (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08, 8.64002487103935000337e+10,
         2.02979612750105546709e+13, 3.17157752842975028269e+15, 2.50596256172653059228e+17)

J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00, 5.11207951146807644818e+00,
         8.42404590141772420927e+00, 5.21451598682361504063e+00, 1.00000000000000000254e+00)
J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00, 5.07386386128601488557e+00,
         8.39985554327604159757e+00, 5.20982848682361821619e+00, 9.99999999999999997461e-01)
J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01, 3.66779609360150777800e+02,
         7.10856304998926107277e+02, 5.97489612400613639965e+02, 2.11688757100572135698e+02, 2.52070205858023719784e+01)
J1_QQ = (7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03, 9.56231892404756170795e+03,
         7.99704160447350683650e+03, 2.82619278517639096600e+03, 3.36093607810698293419e+02)
J1_RP = (-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13, 3.68295732863852883286e+15)
J1_RQ = (6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07, 2.21511595479792499675e+10,
         4.74914122079991414898e+12, 7.84369607876235854894e+14, 8.95222336184627338078e+16, 5.32278620332680085395e+18)
J1_R1_SQUARED = 1.46819706421238932572e+01
J1_R2_SQUARED = 4.92184563216946036703e+01
Y1_YP = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14, -8.12770255501325109621e+15,
         2.02439475713594898196e+17, -7.78877196265950026825e+17)
Y1_YQ = (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07, 1.87601316108706159478e+10,
         3.88231277496238566008e+12, 6.20557727146953693363e+14, 6.87141087355300489866e+16, 3.97270608116560655612e+18)

_PI_4 = 0.785398163397448309615660845819875721  # pi / 4
_3PI_4 = 2.356194490192344928846982537459627163  # 3 pi / 4
_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737
_TWO_OVER_PI = 0.636619772367581343075535053490057448


def _hankel(x, z, tables, phase, second_kind: bool):
    """sqrt(2/(pi x)) (P cos(x - phase) - 5/x Q sin(x - phase)) for J; (P sin + 5/x Q cos) for Y."""
    pp, pq, qp, qq = (_horner(z, t) for t in tables)
    p = pp / pq
    q = 5.0 / x * (qp / qq)
    if second_kind:
        wave = cr.fma(p, cr.sin(x - phase), q * cr.cos(x - phase))
    else:
        wave = cr.fms(p, cr.cos(x - phase), q * cr.sin(x - phase))
    return wave * _SQRT_2_OVER_PI / xp.sqrt(x)


def _j0_near(x):
    xx = x * x
    return (xx - J0_R1_SQUARED) * (xx - J0_R2_SQUARED) * _horner(xx, J0_RP) / _horner(xx, J0_RQ)


def _j0_far(x):
    return _hankel(x, 25.0 / (x * x), (J0_PP, J0_PQ, J0_QP, J0_QQ), _PI_4, False)


def _j0_abs(x):
    """J0 of ``x`` >= 0 (or NaN)."""
    near = x <= 5.0
    tiny = x < 0.00001
    return piecewise(
        x,
        (tiny, lambda v: 1.0 - v * v / 4.0),
        (near & ~tiny, _j0_near),
        (~near, _j0_far),
    )


def bessel_j0(x):
    """J0(x), the Bessel function of the first kind of order 0 (Math.h bessel_j0_forward, Cephes j0.c)."""
    return _j0_abs(xp.abs(x))


def _j1_near(x):
    xx = x * x
    return _horner(xx, J1_RP) / _horner(xx, J1_RQ) * x * (xx - J1_R1_SQUARED) * (xx - J1_R2_SQUARED)


def _five_over_x_squared(x):
    five_over_x = 5.0 / x
    return five_over_x * five_over_x


def _j1_far(x):
    return _hankel(x, _five_over_x_squared(x), (J1_PP, J1_PQ, J1_QP, J1_QQ), _3PI_4, False)


def bessel_j1(x):
    """J1(x), odd in x (Math.h bessel_j1_forward, Cephes j1.c: J1(-x) = -J1(x))."""
    ax = xp.abs(x)
    near = ax <= 5.0
    return _odd(x, piecewise(ax, (near, _j1_near), (~near, _j1_far)))


def _y_family(x, near, far):
    """-inf at 0, NaN below 0, ``near`` on (0, 5], ``far`` beyond (NaN goes there and stays NaN)."""
    small = (x > 0.0) & (x <= 5.0)
    return piecewise(
        x,
        (x == 0.0, _constant(-xp.inf)),
        (x < 0.0, _constant(xp.nan)),
        (small, near),
        (~(small | (x <= 0.0)), far),
    )


def _y0_near(x):
    xx = x * x
    return cr.fma(_TWO_OVER_PI * cr.log(x), _j0_abs(x), _horner(xx, Y0_YP) / _horner(xx, Y0_YQ))


def bessel_y0(x):
    """Y0(x): -inf at 0, NaN for x < 0 (Math.h bessel_y0_forward, Cephes j0.c)."""
    return _y_family(x, _y0_near, lambda v: _hankel(v, 25.0 / (v * v), (J0_PP, J0_PQ, J0_QP, J0_QQ), _PI_4, True))


def _y1_near(x):
    xx = x * x
    bracket = cr.fms(_j1_near(x), cr.log(x), 1.0 / x)
    return cr.fma(x, _horner(xx, Y1_YP) / _horner(xx, Y1_YQ), _TWO_OVER_PI * bracket)


def bessel_y1(x):
    """Y1(x): -inf at 0, NaN for x < 0 (Math.h bessel_y1_forward, Cephes j1.c)."""
    return _y_family(
        x, _y1_near, lambda v: _hankel(v, _five_over_x_squared(v), (J1_PP, J1_PQ, J1_QP, J1_QQ), _3PI_4, True)
    )


# ----------------------------------------------------------------- spherical j0


def spherical_bessel_j0(x):
    """j0(x) = sin(x)/x: a Taylor polynomial for |x| < 0.5, 0 at +-inf (Math.h spherical_bessel_j0_forward)."""
    one = x.dtype.type(1.0)
    # Math.h writes the coefficients as T(1.0) / T(k!): the quotients are rounded in the working dtype
    c = [one / x.dtype.type(k) for k in (-6.0, 120.0, -5040.0, 362880.0, -39916800.0, 6227020800.0)]
    xx = x * x
    series = 1.0 + xx * (c[0] + xx * (c[1] + xx * (c[2] + xx * (c[3] + xx * (c[4] + xx * c[5])))))
    out = xp.where(xp.abs(x) < 0.5, series, cr.sin(x) / x)
    return xp.where(xp.isinf(x), 0.0, out).astype(x.dtype, copy=False)


# ----------------------------------------------------------------- Airy Ai (Cephes airy.c)

AIRY_AN = (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01, 1.68089224934630576269e+02,
           1.59756391350164413639e+02, 7.05360906840444183113e+01, 1.40264691163389668864e+01, 9.99999999999999995305e-01)
AIRY_AD = (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01, 1.77318088145400459522e+02,
           1.64234692871529701831e+02, 7.14778400825575695274e+01, 1.40959135607834029598e+01, 1.00000000000000000470e+00)
AIRY_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
            -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
            -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
AIRY_AFD = (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01, 9.18707402907259625840e+00,
            1.47529146771666414581e+00, 1.15687173795188044134e-01, 4.40291641615211203805e-03, 7.54720348287414296618e-05,
            4.51850092970580378464e-07)
AIRY_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00, 9.39169229816650230044e-01,
            3.51465656105547619242e-01, 6.33888919628925490927e-02, 5.85804113048388458567e-03, 2.82851600836737019778e-04,
            6.98793669997260967291e-06, 8.11789239554389293311e-08, 3.41551784765923618484e-10)
AIRY_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01, 5.47686069422975497931e+00,
            9.54293611618961883998e-01, 8.64580826352392193095e-02, 4.12656523824222607191e-03, 1.01259085116509135510e-04,
            1.17166733214413521882e-06, 4.91834570062930015649e-09)
_RSQRT_PI = 5.64189583547756286948e-01  # 1 / sqrt(pi)
_AIRY_C1 = 0.355028053887817239260  # Ai(0)
_AIRY_C2 = 0.258819403792806798405  # -Ai'(0)


def _airy_maclaurin(x):
    """Ai(x) = c1 f(x) - c2 g(x) from the Maclaurin series of f and g, summed until a term of f is below
    machine epsilon relative to the sum (Math.h's ``while (t > epsilon)``), each element stopping on its own."""
    eps = float(xp.finfo(x.dtype).eps)
    f = xp.ones_like(x)
    g = x.copy()
    m = xp.ones_like(x)
    n = x.copy()
    t = xp.ones_like(x)
    z = x * x * x
    for step in range(200):
        active = t > eps
        if not active.any():
            break
        k = 3.0 * step + 1.0  # Math.h's counter before this step's three increments
        m_next = m * z / (k + 1.0) / (k + 2.0)
        n_next = n * z / (k + 2.0) / (k + 3.0)
        f_next = f + m_next
        g_next = g + n_next
        m = xp.where(active, m_next, m)
        n = xp.where(active, n_next, n)
        f = xp.where(active, f_next, f)
        g = xp.where(active, g_next, g)
        t = xp.where(active, xp.abs(m / f), t)
    return cr.fms(f, _AIRY_C1, _AIRY_C2 * g)


def airy_ai(x):
    """Ai(x), the Airy function of the first kind (Math.h airy_ai_forward, Cephes airy.c).

    NaN at +-inf (Math.h tests isinf first), 0 above 103.892; the oscillating asymptotic form below
    -2.09, the decaying one from 2.09 (alone above 8.3203353), the Maclaurin series between.
    """
    out = xp.empty_like(x)
    series = ~((x < -2.09) | (x >= 2.09))  # NaN goes to the series and stays NaN
    left = x < -2.09
    right = x >= 2.09
    if left.any():
        xl = x[left]
        zeta = -2.0 * xl * xp.sqrt(-xl) / 3.0
        z = 1.0 / zeta
        zz = z * z
        afn, afd = _horner(zz, AIRY_AFN), _horner(zz, AIRY_AFD)
        agn, agd = _horner(zz, AIRY_AGN), _horner(zz, AIRY_AGD)
        theta = -2.0 * xl * xp.sqrt(-xl) / 3.0 + 0.25 * math.pi
        out[left] = _RSQRT_PI / xp.sqrt(xp.sqrt(-xl)) * cr.fms(
            cr.sin(theta), 1.0 + z * z * afn / afd, cr.cos(theta) * (z * agn / agd)
        )
    if right.any():
        xr = x[right]
        zeta = 2.0 * xr * xp.sqrt(xr) / 3.0
        inv = 1.0 / zeta
        out[right] = _RSQRT_PI * (_horner(inv, AIRY_AN) / _horner(inv, AIRY_AD)) / (
            2.0 * xp.sqrt(xp.sqrt(xr)) * cr.exp(zeta)
        )
    if series.any():
        out[series] = _airy_maclaurin(x[series])
    out[x > 103.892] = 0.0
    out[xp.isinf(x)] = xp.nan
    return out
