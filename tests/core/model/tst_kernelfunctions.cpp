#include "model/kernelfunctions.h"

#include <QTest>

// Which function of a kernel file is the kernel (the runner's rule), and what the file says about shapes.
class TestKernelFunctions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void picksTheOnlyJitFunctionWhateverItsName()
    {
        const QString src = QStringLiteral("from neuronxcc import nki\n\ndef helper(a, b):\n    return a\n\n"
                                           "@nki.jit\ndef row_softmax(x, *, scale=1.0):\n    return x\n");
        QString error;
        const auto fn = KernelFunctions::pick(src, {}, error);
        QVERIFY2(fn, qPrintable(error));
        QCOMPARE(fn->name, QStringLiteral("row_softmax"));
        QCOMPARE(fn->parameters, QStringList{QStringLiteral("x")}); // keyword-only `scale` is no input
        QCOMPARE(fn->line, 7);
        QVERIFY(fn->jit);
    }

    void readsMultiLineSignaturesWithAnnotations()
    {
        const QString src = QStringLiteral("@nki.jit(mode='simulation')\n"
                                           "def layer_norm(x: nt.tensor[256, 1024],\n"
                                           "               gamma, beta=None):\n    pass\n");
        QString error;
        const auto fn = KernelFunctions::pick(src, {}, error);
        QVERIFY2(fn, qPrintable(error));
        QCOMPARE(fn->parameters,
                 (QStringList{QStringLiteral("x"), QStringLiteral("gamma"), QStringLiteral("beta")}));
    }

    void severalJitFunctionsNeedAName()
    {
        const QString src = QStringLiteral("@nki.jit\ndef a(x):\n    pass\n\n@jit\ndef b(x):\n    pass\n");
        QString error;
        QVERIFY(!KernelFunctions::pick(src, {}, error));
        QVERIFY2(error.contains(QStringLiteral("a, b")) && error.contains(QStringLiteral("--function")),
                 qPrintable(error));
        const auto named = KernelFunctions::pick(src, QStringLiteral("b"), error);
        QVERIFY(named);
        QCOMPARE(named->name, QStringLiteral("b"));
        QVERIFY(!KernelFunctions::pick(src, QStringLiteral("c"), error));
        QVERIFY2(error.contains(QStringLiteral("no function named 'c'")), qPrintable(error));
    }

    // A jit function the kernel calls is a traced helper; of two uncalled ones, `kernel` is the legacy
    // choice.
    void jitHelpersAreNotTheKernel()
    {
        const QString src =
            QStringLiteral("@nki.jit(mode='trace')\ndef half(t, cfg):\n    return nl.multiply(t, 0.5)\n"
                           "SCALE = 2\n"
                           "@nki.jit\ndef row_op(a):\n    return half(nl.load(a), None)\n");
        QString error;
        const auto fn = KernelFunctions::pick(src, {}, error);
        QVERIFY2(fn, qPrintable(error));
        QCOMPARE(fn->name, QStringLiteral("row_op"));
        const auto legacy = KernelFunctions::pick(
            QStringLiteral("@nki.jit\ndef other(x):\n    pass\n@nki.jit\ndef kernel(x):\n    pass\n"), {},
            error);
        QVERIFY(legacy);
        QCOMPARE(legacy->name, QStringLiteral("kernel"));
    }

    void undecoratedLegacyKernels()
    {
        QString error;
        const auto legacy = KernelFunctions::pick(
            QStringLiteral("def helper(x):\n    pass\ndef kernel(x, y):\n    pass\n"), {}, error);
        QVERIFY(legacy);
        QCOMPARE(legacy->name, QStringLiteral("kernel"));
        const auto only = KernelFunctions::pick(QStringLiteral("def mine(x):\n    pass\n"), {}, error);
        QVERIFY(only);
        QCOMPARE(only->name, QStringLiteral("mine"));
        QVERIFY(
            !KernelFunctions::pick(QStringLiteral("def a(x):\n    pass\ndef b(y):\n    pass\n"), {}, error));
        QVERIFY2(error.contains(QStringLiteral("@nki.jit")), qPrintable(error));
        QVERIFY(!KernelFunctions::pick(QStringLiteral("x = 1\n"), {}, error));
    }

    void nestedDefsAreNotCandidates()
    {
        const QString src =
            QStringLiteral("@nki.jit\ndef outer(x):\n    @nki.jit\n    def inner(y):\n        pass\n");
        QString error;
        const auto fn = KernelFunctions::pick(src, {}, error);
        QVERIFY2(fn, qPrintable(error));
        QCOMPARE(fn->name, QStringLiteral("outer"));
        QCOMPARE(KernelFunctions::all(src).size(), 1);
    }

    void shapeHintsFromCommentsDocstringsAndAsserts()
    {
        const QString src = QStringLiteral("\"\"\"Row softmax.\n\n    x: [256, 2048] float32\n\"\"\"\n"
                                           "# w: (2048, 512) bfloat16\n"
                                           "@nki.jit\ndef k(x, w, b, y):\n"
                                           "    assert b.shape == (512,)\n"
                                           "    t = nl.load(y[0, 1])  # y: 64x32\n"
                                           "    z = x[0, 1]\n");
        const auto hints = KernelFunctions::shapeHints(src);
        QCOMPARE(hints.value(QStringLiteral("x")).shape, (QList<qint64>{256, 2048}));
        QCOMPARE(hints.value(QStringLiteral("x")).dtype, QStringLiteral("float32"));
        QCOMPARE(hints.value(QStringLiteral("w")).shape, (QList<qint64>{2048, 512}));
        QCOMPARE(hints.value(QStringLiteral("w")).dtype, QStringLiteral("bfloat16"));
        QCOMPARE(hints.value(QStringLiteral("b")).shape, (QList<qint64>{512}));
        QCOMPARE(hints.value(QStringLiteral("y")).shape, (QList<qint64>{64, 32}));
        // An index in code is not a statement of a shape.
        QVERIFY(!hints.contains(QStringLiteral("z")));
    }
};

QTEST_GUILESS_MAIN(TestKernelFunctions)
#include "tst_kernelfunctions.moc"
