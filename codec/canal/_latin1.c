/* The JSON text of a binary value as TiCDC's canal-json writes it, in one table-driven pass.
 *
 * Canal reads a binary column's bytes as ISO-8859-1, one character per byte, and easyjson
 * writes that text with Go's escapes: `\"` `\\` `\n` `\r` `\t` short, every other control
 * (backspace and form feed too) and the HTML-safe `<` `>` `&` as `\u00xx`, and a byte from 0x80
 * up as the two bytes of its character's UTF-8. In Python that is a decode to a str, CPython's
 * UTF-8 conversion of it inside orjson, two searches for the controls orjson writes short, and
 * the HTML escapes of the whole map: on random bytes the branches mispredict and the message is
 * copied several times. Here each byte is a copy of its precomputed escape.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static unsigned char escape_length[256];
static char escape_text[256][8];

static void build_escapes(void)
{
    static const char hex[] = "0123456789abcdef";
    for (int b = 0; b < 256; b++) {
        char *text = escape_text[b];
        if (b == '\n' || b == '\r' || b == '\t' || b == '"' || b == '\\') {
            text[0] = '\\';
            text[1] = b == '\n' ? 'n' : b == '\r' ? 'r' : b == '\t' ? 't' : (char)b;
            escape_length[b] = 2;
        } else if (b < 0x20 || b == '<' || b == '>' || b == '&') {
            memcpy(text, "\\u00", 4);
            text[4] = hex[b >> 4];
            text[5] = hex[b & 15];
            escape_length[b] = 6;
        } else if (b < 0x80) {
            text[0] = (char)b;
            escape_length[b] = 1;
        } else {
            text[0] = (char)(0xC0 | (b >> 6));
            text[1] = (char)(0x80 | (b & 0x3F));
            escape_length[b] = 2;
        }
    }
}

static PyObject *json_text(PyObject *module, PyObject *value)
{
    if (!PyBytes_Check(value)) {
        PyErr_Format(PyExc_TypeError, "json_text() takes bytes, not %.100s",
                     Py_TYPE(value)->tp_name);
        return NULL;
    }
    const unsigned char *in = (const unsigned char *)PyBytes_AS_STRING(value);
    Py_ssize_t length = PyBytes_GET_SIZE(value);
    if (length > (PY_SSIZE_T_MAX - 8) / 6) {
        return PyErr_NoMemory();
    }
    /* six bytes at most a byte; each copy writes eight, so two more for the last one */
    PyObject *out = PyBytes_FromStringAndSize(NULL, length * 6 + 4);
    if (out == NULL) {
        return NULL;
    }
    char *start = PyBytes_AS_STRING(out);
    char *at = start;
    *at++ = '"';
    for (Py_ssize_t i = 0; i < length; i++) {
        memcpy(at, escape_text[in[i]], 8);
        at += escape_length[in[i]];
    }
    *at++ = '"';
    if (_PyBytes_Resize(&out, at - start) < 0) {
        return NULL;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"json_text", json_text, METH_O,
     "json_text(data: bytes) -> bytes\n\nThe JSON string, quotes included, of data read as "
     "ISO-8859-1, with the escapes of TiCDC's canal-json (Go's, HTML-safe, \\u0008 and "
     "\\u000c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_latin1", "canal-json's binary texts (see json_text).", -1, methods,
};

PyMODINIT_FUNC PyInit__latin1(void)
{
    build_escapes();
    return PyModule_Create(&module);
}
