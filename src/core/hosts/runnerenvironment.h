#pragma once

#include <QProcessEnvironment>

// The environment a runner on this machine starts with: what Python, the runner, its BLAS and a Neuron SDK
// read, and nothing else. The workbench's own environment holds secrets (an LLM API key, cloud credentials)
// that an untrusted kernel would otherwise read from os.environ of its evaluation process. A host's own
// `environment` setting is added on top by the caller: naming a variable there is a deliberate choice.
class RunnerEnvironment
{
public:
    static QProcessEnvironment fromSystem(const QProcessEnvironment &system);
    // fromSystem() of this process, with the runner of `nkibenchDir` importable: what a runner started on this
    // machine gets (the local host's slots, a local `explorer-profile` conversion).
    static QProcessEnvironment forLocalRunner(const QString &nkibenchDir);
    static bool passes(const QString &name);
};
