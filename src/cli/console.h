#pragma once

class QTextStream;

// The CLI's stdout and stderr as text streams, one of each for the whole process, so output of different
// commands and helpers never interleaves out of order through separate buffers.
class Console
{
public:
    static QTextStream &out();
    static QTextStream &err();
};
