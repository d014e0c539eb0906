#include "model/kernelnormalizer.h"

#include <QTest>

class TestKernelNormalizer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void stripsCommentsDocstringsAndBlankLines()
    {
        const QString source = QStringLiteral("\"\"\"Module docstring.\"\"\"\n"
                                              "import numpy as np  # numpy\n"
                                              "\n"
                                              "def kernel(a):   \n"
                                              "    '''Does things.\n"
                                              "    Over two lines.'''\n"
                                              "    # a comment line\n"
                                              "    x = \"# not a comment\"\n"
                                              "    return f(x,\n"
                                              "             'kept: an argument')\n");
        QCOMPARE(KernelNormalizer::normalize(source), QStringLiteral("import numpy as np\n"
                                                                     "def kernel(a):\n"
                                                                     "    x = \"# not a comment\"\n"
                                                                     "    return f(x,\n"
                                                                     "             'kept: an argument')"));
    }

    void sameProgramSameHash()
    {
        const QString a = QStringLiteral("def kernel(x):\n    return x + 1\n");
        const QString b = QStringLiteral("# v2 by the executor\ndef kernel(x):   \n\n    \"\"\"Adds "
                                         "one.\"\"\"\n    return x + 1  # same\n");
        const QString c = QStringLiteral("def kernel(x):\n    return x + 2\n");
        QCOMPARE(KernelNormalizer::hash(a), KernelNormalizer::hash(b));
        QVERIFY(KernelNormalizer::hash(a) != KernelNormalizer::hash(c));
        QCOMPARE(KernelNormalizer::hash(a).size(), 64);
    }

    void keepsEscapedQuotesAndIndentation()
    {
        const QString s = QStringLiteral("s = 'it\\'s # fine'\nif s:\n    t = \"\"\"a\n# b\"\"\"\n");
        QCOMPARE(KernelNormalizer::normalize(s),
                 QStringLiteral("s = 'it\\'s # fine'\nif s:\n    t = \"\"\"a\n# b\"\"\""));
    }
};

QTEST_GUILESS_MAIN(TestKernelNormalizer)
#include "tst_kernelnormalizer.moc"
