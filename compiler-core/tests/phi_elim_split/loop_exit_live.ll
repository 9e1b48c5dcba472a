target triple = "nvptx64-nvidia-cuda"
define void @f(ptr %p, i32 %n, i32 %m) {
entry:
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %loop]
  %s = phi i32 [1, %entry], [%s1, %loop]
  %s1 = mul i32 %s, %i
  %i1 = add i32 %i, 1
  %c2 = icmp slt i32 %i1, %n
  br i1 %c2, label %loop, label %exit
exit:
  %a = phi i32 [%i1, %loop]
  %b = add i32 %a, %s1
  %z = add i32 %b, %i1
  store i32 %z, ptr %p
  ret void
}
